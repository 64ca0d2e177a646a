/**
 * A retry of a recorded perp accept is told the truth, on both stores. The
 * first accept won the RFQ before its auction closed and is being checked; an identical retry
 * (same quote, same body) sent after `auctionEndsAt` is answered 202 as the first was, where it
 * used to be 409 AUCTION_CLOSED while the order went on to settle. A different accept then is
 * still AUCTION_CLOSED. Once the execution has settled, the retry answers the outcome (202,
 * SETTLED). The node here runs no perp executor, so the accept stays in its checks until the test
 * drives it; its clock is moved past the auction's end rather than waited for.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/client/http.ts';
import { VenueClient } from '../../../src/venue/venue-client.ts';
import { runPerpExecution } from '../../../src/services/perp/execute-perp.ts';
import { wirePerpExecutor } from '../../../src/runtime/perp-wiring.ts';
import { backends } from '../../helpers/backends.ts';
import { BUILDER, PerpFixture, TEST_PERP_EXECUTION, takerOrder } from '../../helpers/perp.ts';

for (const backend of backends()) {
  describe(`a retried perp accept [${backend}]`, () => {
    let f: PerpFixture;
    let offsetMs = 0;
    const clock = { now: () => Date.now() + offsetMs };

    before(async () => {
      f = await PerpFixture.start(backend, { clock, workers: new Set(['dispatch']) });
    });
    after(async () => f?.close());

    it('is answered 202 after the auction closed while the first is checked, and SETTLED once it settled', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }], 5_000);
      const body = { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') };
      const first = await taker.client.accept(rfqId, body);
      assert.equal(first.status, 'PENDING');

      offsetMs = (await taker.client.getRfq(rfqId)).auctionEndsAt - Date.now() + 1_000;
      const retry = await taker.client.accept(rfqId, body);
      assert.deepEqual(retry, first, 'the retry gets what the first got');
      const other = await taker.client.accept(rfqId, { ...body, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') }).then(() => null, (e: unknown) => e);
      assert.ok(other instanceof ApiError && other.code === 'AUCTION_CLOSED', `a different accept after the close: ${String(other)}`);

      const execution = await f.h.node.store.db.selectFrom('perp_executions').select(['id', 'phase']).where('rfq_id', '=', rfqId).executeTakeFirstOrThrow();
      assert.equal(execution.phase, 'checking');
      const venue = new VenueClient({ url: f.sim.url, network: 'mainnet', builderAddress: BUILDER, now: clock.now });
      const { executor } = wirePerpExecutor(f.h.node.context.service, venue, { network: 'mainnet', builderAddress: BUILDER }, TEST_PERP_EXECUTION);
      await runPerpExecution(executor, execution.id);
      assert.equal((await taker.client.getRfq(rfqId)).status, 'SETTLED');
      assert.equal(await f.ethPosition(taker.account.address), '0.1', 'the trade happened');

      const late = await taker.client.accept(rfqId, body);
      assert.deepEqual(late, { ...first, status: 'SETTLED' }, 'after the end: the outcome, never AUCTION_CLOSED');
    });
  });
}
