/**
 * The maker's order refused at the venue for the maker's own reasons (DESIGN.md 9.3 step 4), over
 * HTTP against the venue simulator, on both databases: a nonce pushed out of the signer's set (the
 * venue's "too old" through a nonce burn) and an ALO that would cross the book. Each refusal counts
 * toward the maker's suspension; the cascade promotes the next backup, and when none is left the
 * RFQ ends EXECUTION_NOT_FILLED with the taker's order never sent (its venue position unchanged).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/eventually.ts';
import { backends } from '../../helpers/backends.ts';
import type { Harness } from '../../helpers/harness.ts';
import { ended, PerpFixture, PRICE_OF, takerOrder } from '../../helpers/perp.ts';

for (const backend of backends()) {
  describe(`perp maker order refused [${backend}]`, () => {
    let f: PerpFixture;
    let h: Harness;

    before(async () => {
      f = await PerpFixture.start(backend);
      h = f.h;
    });
    after(async () => f?.close());

    async function makerFailures(quoteId: string): Promise<string[]> {
      const rows = await h.node.store.db.selectFrom('maker_failures').select('reason').where('quote_id', '=', quoteId).execute();
      return rows.map((r) => r.reason);
    }

    /** The venue's refusal of each maker order, as stored with the execution. */
    async function makerOrderErrors(rfqId: string): Promise<Map<string, string>> {
      const rows = await h.node.store.db
        .selectFrom('perp_execution_calls')
        .innerJoin('perp_executions', 'perp_executions.id', 'perp_execution_calls.execution_id')
        .select(['perp_execution_calls.quote_id as quoteId', 'perp_execution_calls.reply as reply'])
        .where('perp_executions.rfq_id', '=', rfqId)
        .where('perp_execution_calls.kind', '=', 'makerOrder')
        .execute();
      return new Map(rows.map((r) => [r.quoteId!, JSON.stringify(r.reply)]));
    }

    /**
     * Fills the signer's nonce set with nonces all above the quoted one, so the venue says "too
     * low". Burning up to "now" would, on a fast run, also burn the quoted nonce itself (signed a
     * few ms ago, inside the set's last 100 ms) and the venue would say "duplicate" instead.
     */
    async function burnPast(signer: string): Promise<void> {
      await f.control.burnNonces(signer, Date.now() + 1000);
    }

    it('too old (its nonce burnt out of the signer\'s set): a maker failure, the backup promoted and executed', async () => {
      const stale = await f.perpMaker();
      const backup = await f.perpMaker();
      const taker = await f.perpTaker();
      // BUY: the accepted quote sells at 3500.1; the backup at 3499.9 is crossed by the taker's IOC too.
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker: stale, usdc: '350.01' }, { maker: backup, usdc: '349.99' }]);
      // The stale maker's key signs many other actions meanwhile: its quoted nonce falls out of the set.
      await burnPast(stale.account.address);
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal(rfq.selectedQuoteId, quoteIds[1], 'the backup executed');
      assert.equal((await taker.client.getQuote(quoteIds[0]!)).status, 'FAILED');
      const executed = await taker.client.getQuote(quoteIds[1]!);
      assert.equal(executed.status, 'SETTLED');
      assert.equal(executed.perpFilledSize, '0.1');
      assert.equal(executed.perpFillAvgPx, PRICE_OF['349.99'], 'the taker met the backup\'s resting order at its price');
      assert.match((await makerOrderErrors(rfqId)).get(quoteIds[0]!) ?? '', /nonce too low/);
      const failures = await makerFailures(quoteIds[0]!);
      assert.equal(failures.length, 1, 'the refusal counts against the stale maker');
      assert.match(failures[0]!, /nonce/);
      assert.deepEqual(await makerFailures(quoteIds[1]!), []);
      assert.equal(await f.ethPosition(taker.account.address), '0.1');
    });

    it('too old with no backup: EXECUTION_NOT_FILLED, the taker\'s order never sent, its position unchanged', async () => {
      const stale = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker: stale, usdc: '350.01' }]);
      await burnPast(stale.account.address);
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'FAILED');
      assert.equal(rfq.failureCode, 'EXECUTION_NOT_FILLED');
      assert.equal((await taker.client.getQuote(quoteIds[0]!)).status, 'FAILED');
      assert.equal((await makerFailures(quoteIds[0]!)).length, 1);
      assert.ok(!(await f.callKinds(rfqId)).some((c) => c.kind === 'takerOrder'), 'the taker order was never sent');
      assert.equal(await f.ethPosition(taker.account.address), '0');
    });

    it('would cross (ALO): the cascade promotes each crossed backup in turn, then ends EXECUTION_NOT_FILLED with the taker\'s order never sent', async () => {
      // The simulator's bid (mid 3500, half spread 1 bp) is at 3499.65: a maker selling at 3499.6 or
      // 3499.5 would take it, so its ALO is refused. A backup is always at least as aggressive as the
      // accepted quote (the taker's IOC must cross it), so on one book every backup crosses too.
      const bid = (await f.info.l2Book({ coin: 'ETH' }))?.levels[0][0]?.px;
      assert.ok(bid !== undefined && Number(bid) >= Number(PRICE_OF['349.96']), `the best bid ${bid} crosses both quotes`);
      const first = await f.perpMaker();
      const second = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker: first, usdc: '349.96' }, { maker: second, usdc: '349.95' }]);
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', PRICE_OF['349.96']!) });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'FAILED', JSON.stringify(rfq));
      assert.equal(rfq.failureCode, 'EXECUTION_NOT_FILLED');
      const errors = await makerOrderErrors(rfqId);
      for (const [i, quoteId] of quoteIds.entries()) {
        assert.match(errors.get(quoteId) ?? '', /Post only order would have immediately matched/, `maker ${i + 1}'s ALO was sent and refused`);
        assert.equal((await taker.client.getQuote(quoteId)).status, 'FAILED', `quote ${i + 1} FAILED`);
        assert.equal((await makerFailures(quoteId)).length, 1, `maker ${i + 1}'s refusal counts`);
      }
      const kinds = (await f.callKinds(rfqId)).filter((c) => c.kind === 'makerOrder').map((c) => c.quoteId);
      assert.deepEqual(kinds, quoteIds, 'the accepted quote first, then the promoted backup');
      assert.ok(!(await f.callKinds(rfqId)).some((c) => c.kind === 'takerOrder'), 'the taker order was never sent');
      assert.equal(await f.ethPosition(taker.account.address), '0');
    });
  });
}
