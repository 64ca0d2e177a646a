/**
 * A perp accept carrying text the store cannot hold, over HTTP against the venue
 * simulator, on both databases. An unpaired surrogate as a key of the taker's order is refused at
 * the edge (400, nothing recorded), where it used to be answered 202 and poison the executor: the
 * checks' refusal quoted the key, `jsonb` refused the lone surrogate, and the execution was retried
 * about four times a second forever with the RFQ PENDING. And an execution whose write the store
 * refuses for good (here the venue's refusal of the maker order carries a NUL, stored with the
 * call) ends: the RFQ FAILED with a reason of ours, its quotes released, nothing logged at error
 * level again and again.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/client/http.ts';
import { eventually } from '../../helpers/eventually.ts';
import { backends } from '../../helpers/backends.ts';
import { capturingLogger } from '../../helpers/error-log.ts';
import { ended, PerpFixture, takerOrder } from '../../helpers/perp.ts';

for (const backend of backends()) {
  describe(`perp accepts the store cannot hold [${backend}]`, () => {
    let f: PerpFixture;
    const errors: string[] = [];

    before(async () => {
      f = await PerpFixture.start(backend, { logger: capturingLogger(errors) });
    });
    after(async () => f?.close());

    it('a lone surrogate as a key of the taker order is refused at the edge; the quote can still be accepted', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const poisoned = await takerOrder(taker.account, 'BUY', '0.1', '3500.1', { action: { '\ud800': 1 } });
      const refused = await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: poisoned }).then(() => null, (e: unknown) => e);
      assert.ok(refused instanceof ApiError, `refused, not accepted: ${String(refused)}`);
      assert.equal(refused.status, 400, refused.message);
      assert.equal(refused.code, 'INVALID_REQUEST');
      assert.match(refused.message, /\\ud800 must not contain control characters or unpaired surrogates/);
      const executions = await f.h.node.store.db.selectFrom('perp_executions').select('id').where('rfq_id', '=', rfqId).execute();
      assert.deepEqual(executions, [], 'nothing recorded');
      assert.equal((await taker.client.getQuote(quoteIds[0]!)).status, 'SUBMITTED');

      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      assert.equal((await eventually(() => taker.client.getRfq(rfqId), ended)).status, 'SETTLED');
      assert.deepEqual(errors, [], 'nothing logged at error level');
    });

    it('an execution whose write the store refuses for good ends FAILED, its quotes released', async () => {
      const maker = await f.perpMaker();
      const other = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }, { maker: other, usdc: '350.02' }]);
      await f.control.addFault({ match: { endpoint: 'exchange', action: 'order', user: maker.account.address }, effect: { type: 'reject', message: 'refused \u0000 here' }, count: 1 });
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'FAILED', JSON.stringify(rfq));
      const stored = await f.h.node.store.db.selectFrom('rfqs').select(['failure_code', 'failure_reason']).where('id', '=', rfqId).executeTakeFirstOrThrow();
      assert.equal(stored.failure_code, 'SETTLEMENT_FAILED');
      assert.match(stored.failure_reason ?? '', /could not be stored \(SQLSTATE 22/);
      for (const id of quoteIds) assert.ok(!['SUBMITTED', 'SELECTED'].includes((await taker.client.getQuote(id)).status), `quote ${id} released`);
      const execution = await eventually(
        () => f.h.node.store.db.selectFrom('perp_executions').select(['phase', 'lease_owner']).where('rfq_id', '=', rfqId).executeTakeFirstOrThrow(),
        (e) => e.phase === 'done' && e.lease_owner === null,
      );
      assert.equal(execution.phase, 'done');
      assert.ok((await f.callKinds(rfqId)).some((c) => c.kind === 'makerCancel'), 'the maker order sent gets its cancel');
      assert.deepEqual(errors, [], 'nothing logged at error level');
    });
  });
}
