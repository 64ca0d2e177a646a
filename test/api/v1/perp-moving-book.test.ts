/**
 * Perp execution against the simulator's moving book (realistic profile's `movingBook`), on both
 * stores: a maker's ALO joining the best ask queues behind the other makers, so the taker's IOC
 * meets them first (SETTLED for the taker's fill, `perpMakerFilledSize` 0, the maker's order
 * cancelled); a maker's ALO at a price the book has since moved through is refused by the venue
 * (the quote FAILED as a maker failure, the taker's IOC never sent). The sim clock is frozen in
 * each case, so no walk step or other taker comes between the steps.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveProfile } from '../../../sim/venue/profile.ts';
import { eventually } from '../../helpers/eventually.ts';
import { backends } from '../../helpers/backends.ts';
import { ended, PerpFixture, takerOrder } from '../../helpers/perp.ts';

// The moving book is under test: no latency, no read lag (the clock is frozen), no weight limit.
const PROFILE = resolveProfile('realistic', { latency: null, readLagMs: 0, weightPerMin: null });

for (const backend of backends()) {
  describe(`perp execution on a moving book [${backend}]`, () => {
    let f: PerpFixture;
    before(async () => {
      f = await PerpFixture.start(backend, {}, { profile: PROFILE, movingBook: true });
    });
    after(() => f?.close());

    /** ETH one tick wide at 3500.0@3500.1 (other makers at both), and sim time stopped there. */
    const standStill = async () => {
      await f.control.clock({ freeze: false });
      await f.control.book({ coin: 'ETH', mid: '3500.05', walk: { stepBps: 0, intervalMs: 60_000 } });
      await f.control.clock({ freeze: true });
      const book = await f.info.l2Book({ coin: 'ETH' });
      assert.deepEqual([book!.levels[0][0]!.px, book!.levels[1][0]!.px, book!.levels[1][0]!.n], ['3500.0', '3500.1', 2]);
    };

    it("an ALO joining the best ask queues behind the other makers: the taker's IOC meets them, SETTLED with perpMakerFilledSize 0", async () => {
      await standStill();
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      const mine = (await maker.client.makerQuotes({ status: ['SETTLED'] })).items.find((q) => q.quoteId === quoteIds[0]) as Record<string, unknown> | undefined;
      assert.deepEqual([mine?.['perpFilledSize'], mine?.['perpFillAvgPx'], mine?.['perpMakerFilledSize']], ['0.1', '3500.1', '0']);
      assert.equal(await f.ethPosition(taker.account.address), '0.1');
      assert.equal(await f.ethPosition(maker.account.address), '0');
      // The maker's pre-signed cancel took its order off the book.
      await eventually(() => f.info.openOrders({ user: maker.account.address }), (open) => open.length === 0);
    });

    it("an ALO at a price the book has moved through is refused: the quote FAILED as a maker failure, the taker's IOC never sent", async () => {
      await standStill();
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      // The mid moves up after the quote: the other makers bid 3500.5, above the maker's ask of 3500.1.
      await f.control.clock({ freeze: false });
      await f.control.book({ coin: 'ETH', mid: '3500.55' });
      await f.control.clock({ freeze: true });
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      const rfq = (await eventually(() => taker.client.getRfq(rfqId), ended)) as unknown as Record<string, unknown>;
      assert.equal(rfq['status'], 'FAILED', JSON.stringify(rfq));
      assert.equal(rfq['failureCode'], 'EXECUTION_NOT_FILLED');
      assert.match(String(rfq['failureReason']), /Post only order would have immediately matched, bbo was 3500\.5@3500\.6\. asset=1/);
      assert.equal((await taker.client.getQuote(quoteIds[0]!)).status, 'FAILED');
      const failures = await f.h.node.store.db.selectFrom('maker_failures').select('quote_id').where('rfq_id', '=', rfqId).execute();
      assert.deepEqual(failures.map((r) => r.quote_id), [quoteIds[0]]);
      assert.ok(!(await f.callKinds(rfqId)).some((c) => c.kind === 'takerOrder'), 'the taker order is not sent');
      assert.equal(await f.ethPosition(taker.account.address), '0');
    });
  });
}
