/**
 * Several makers fill one RFQ (`fill: "SWEEP"`) over HTTP on both stores: the request and its
 * echo, what makers see, the quotes a SWEEP RFQ admits (part of the size, `allOrNone`), and that
 * an RFQ without `fill` shows none of it.
 */
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { waitUntil } from '../../helpers/eventually.ts';
import { balanceOf } from '../../helpers/settlement.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

async function usdc(client: RfqClient): Promise<[string, string]> {
  const b = balanceOf((await client.balances()).balances, 'USDC');
  return [b.available, b.locked];
}

for (const backend of backends()) {
  describe(`SWEEP RFQs [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => h.close());
    afterEach(async () => {
      const invariants = await h.admin.invariants();
      assert.deepEqual(invariants.violations, []);
    });

    async function fundedTaker() {
      const taker = await h.newUser();
      await h.fund(taker.account.address, { USDC: '100000', ETH: '100' });
      return taker;
    }

    const sweepBuy = { instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, baseQty: '3', quoteLimit: '9100', fill: 'SWEEP' as const, windowMs: 60_000 };

    it('creates a SWEEP RFQ that echoes fill and minFillQty (default baseQty); makers see both and the full size', async () => {
      const { client } = await fundedTaker();
      const maker = await h.newMaker();
      const { rfqId } = await client.createRfq({ ...sweepBuy, minFillQty: '1.5' });
      const rfq = await client.getRfq(rfqId);
      assert.equal(rfq.fill, 'SWEEP');
      assert.equal(rfq.minFillQty, '1.5');
      const byDefault = await client.getRfq((await client.createRfq(sweepBuy)).rfqId);
      assert.equal(byDefault.minFillQty, '3');
      // A SWEEP SELL carves no base out for the fee: makers quote on the full size.
      const sell = await client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'SELL', baseQty: '2', fill: 'SWEEP', windowMs: 60_000 });
      const open = (await maker.client.openRfqs()).items;
      const shown = open.find((r) => r.id === rfqId)!;
      assert.equal(shown.fill, 'SWEEP');
      assert.equal(shown.minFillQty, '1.5');
      assert.equal(open.find((r) => r.id === sell.rfqId)!.baseQty, '2');
    });

    it('an RFQ without fill shows neither fill nor minFillQty, to the taker or to makers', async () => {
      const { client } = await fundedTaker();
      const maker = await h.newMaker();
      const { rfqId } = await client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', windowMs: 60_000 });
      const rfq = await client.getRfq(rfqId);
      assert.equal('fill' in rfq, false);
      assert.equal('minFillQty' in rfq, false);
      const shown = (await maker.client.openRfqs()).items.find((r) => r.id === rfqId)!;
      assert.equal('fill' in shown, false);
      assert.equal('minFillQty' in shown, false);
    });

    it('refuses bad SWEEP requests with stable codes and creates nothing', async () => {
      const { client } = await fundedTaker();
      const field = async (body: Record<string, unknown>) => {
        const error = await rejects(client.signed('POST', '/v1/rfq/requests', { body }), 400, 'INVALID_REQUEST');
        return (error.details?.errors as Array<{ field: string; reason: string }>).map((e) => `${e.field}:${e.reason}`);
      };
      assert.deepEqual(await field({ ...sweepBuy, minFillQty: '3.1' }), ['minFillQty:aboveBaseQty']);
      assert.deepEqual(await field({ ...sweepBuy, minFillQty: '0' }), ['minFillQty:zero']);
      assert.deepEqual(await field({ ...sweepBuy, fill: 'ALL', minFillQty: '1' }), ['minFillQty:notAllowed']);
      assert.ok((await field({ ...sweepBuy, fill: 'SOME' })).some((f) => f.startsWith('fill:')));
      const precise = await rejects(client.createRfq({ ...sweepBuy, minFillQty: '0.0000000000000000001' }), 400, 'AMOUNT_OVER_PRECISE');
      assert.equal(precise.details?.maxDecimals, 18);
      assert.equal((await client.listRfqs()).items.length, 0);
    });

    it('admits quotes for part of the size on a SWEEP RFQ, with allOrNone (default true); refuses more than baseQty', async () => {
      const { client } = await fundedTaker();
      const maker = await h.newMaker();
      const divisible = await h.newMaker();
      const { rfqId } = await client.createRfq(sweepBuy);
      const quote = (amount: string, price: string, extra: Record<string, unknown> = {}) => ({
        rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount }, makerReceives: { token: 'USDC', amount: price }, ...extra,
      });
      const whole = await maker.client.submitQuote(quote('1', '3000'));
      const cuttable = await divisible.client.submitQuote(quote('2.5', '7500', { allOrNone: false }));
      const over = await rejects(h.newMaker().then((m) => m.client.submitQuote(quote('3.5', '10500'))), 400, 'LEGS_MISMATCH');
      assert.equal(over.details?.reason, 'baseQty');
      const quotes = (await client.rfqQuotes(rfqId)).items;
      const seen = new Map(quotes.map((q) => [q.quoteId, q]));
      assert.equal(seen.get(whole.quoteId)!.allOrNone, true);
      assert.equal(seen.get(cuttable.quoteId)!.allOrNone, false);
      // Each SWEEP quote's takerTotal is its own, the fee (0.25%) on its quote leg.
      assert.equal(seen.get(whole.quoteId)!.takerTotal, '3007.5');
      const mine = (await divisible.client.makerQuotes()).items.find((q) => q.quoteId === cuttable.quoteId)!;
      assert.equal(mine.allOrNone, false);
      // A re-quote without allOrNone is all-or-none again.
      await divisible.client.submitQuote(quote('2.5', '7490'));
      assert.equal((await client.getQuote(cuttable.quoteId)).allOrNone, true);
    });

    it('keeps the single-quote rules on an RFQ without fill: the full size only, no allOrNone', async () => {
      const { client } = await fundedTaker();
      const maker = await h.newMaker();
      const { rfqId } = await client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '3', windowMs: 60_000 });
      const quote = (amount: string, extra: Record<string, unknown> = {}) => ({
        rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount }, makerReceives: { token: 'USDC', amount: '9000' }, ...extra,
      });
      await rejects(maker.client.submitQuote(quote('1')), 400, 'LEGS_MISMATCH');
      const error = await rejects(maker.client.submitQuote(quote('3', { allOrNone: false })), 400, 'INVALID_REQUEST');
      assert.deepEqual((error.details?.errors as Array<{ field: string; reason: string }>).map((e) => `${e.field}:${e.reason}`), ['allOrNone:notAllowed']);
      const { quoteId } = await maker.client.submitQuote(quote('3'));
      assert.equal('allOrNone' in (await client.getQuote(quoteId)), false);
    });

    /** Three makers on a 3 ETH BUY: B 1.5 at 2980 (all-or-none), A 2 at 2990 (all-or-none), C 2 at 3000.0000005 (divisible). */
    async function threeMakerSweep(createExtra: Record<string, unknown> = {}) {
      const taker = await fundedTaker();
      const [a, b, c] = [await h.newMaker(), await h.newMaker(), await h.newMaker()];
      const { rfqId } = await taker.client.createRfq({ ...sweepBuy, ...createExtra });
      const quote = (amount: string, price: string, extra: Record<string, unknown> = {}) => ({
        rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount }, makerReceives: { token: 'USDC', amount: price }, ...extra,
      });
      const qa = await a.client.submitQuote(quote('2', '5980'));
      const qb = await b.client.submitQuote(quote('1.5', '4470'));
      const qc = await c.client.submitQuote(quote('2', '6000.000001', { allOrNone: false }));
      return { taker, makers: { a, b, c }, rfqId, quotes: { a: qa.quoteId, b: qb.quoteId, c: qc.quoteId } };
    }

    it('refuses a sweep below minFillQty with 409 QUOTE_NOT_ACCEPTABLE and changes nothing', async () => {
      // Without C only B fits whole (A does not fit what is left): 1.5 of the 3 asked.
      const { taker, makers, rfqId, quotes } = await threeMakerSweep();
      await makers.c.client.cancelQuote(quotes.c);
      const before = await taker.client.rfqQuotes(rfqId);
      const refused = await rejects(taker.client.acceptSweep(rfqId, { sweep: true }), 409, 'QUOTE_NOT_ACCEPTABLE');
      assert.deepEqual(refused.details, { reason: 'minFillQty', minFillQty: '3', fillableQty: '1.5' });
      await rejects(taker.client.acceptSweep(rfqId, { quotes: [{ quoteId: quotes.a }, { quoteId: quotes.b }] }), 409, 'QUOTE_NOT_ACCEPTABLE');
      // A plain quoteId on a SWEEP RFQ is a sweep of that one quote: minFillQty holds.
      await rejects(taker.client.accept(rfqId, { quoteId: quotes.b }), 409, 'QUOTE_NOT_ACCEPTABLE');
      assert.equal((await taker.client.getRfq(rfqId)).status, 'PENDING');
      assert.deepEqual(await taker.client.rfqQuotes(rfqId), before, 'every quote unchanged');
      assert.deepEqual(await usdc(taker.client), ['100000', '0']);
    });

    it('sweeps three makers: best price first, an all-or-none quote that does not fit skipped, the divisible one cut in its favour; legs fail on their own at the deadline', async () => {
      await h.admin.putSettings({ settlementHeadroomSecs: 1 });
      try {
        const { taker, makers, rfqId, quotes } = await threeMakerSweep({ windowMs: 4000 });
        const accepted = await taker.client.acceptSweep(rfqId, { sweep: true });
        assert.equal(accepted.status, 'QUOTED');
        assert.deepEqual(accepted.quoteIds, [quotes.b, quotes.c]);
        assert.equal(accepted.quoteId, quotes.b);
        const replay = await taker.client.acceptSweep(rfqId, { sweep: true });
        assert.deepEqual([replay.status, replay.quoteIds], ['QUOTED', [quotes.b, quotes.c]], 'a retried sweep replays the 202');
        await rejects(taker.client.accept(rfqId, { quoteId: quotes.a }), 409, 'RFQ_NOT_PENDING');

        const rfq = await taker.client.getRfq(rfqId);
        // C's 2 ETH for 6000.000001 cut to 1.5: 4500.00000075, rounded up (the maker receives it).
        assert.deepEqual(rfq.fills, [
          { quoteId: quotes.b, baseQty: '1.5', quoteQty: '4470', status: 'SELECTED' },
          { quoteId: quotes.c, baseQty: '1.5', quoteQty: '4500.000001', status: 'SELECTED' },
        ]);
        // One lock per leg, each its quote leg plus 0.25%, rounded down: 4481.175 + 4511.250001.
        assert.deepEqual(await usdc(taker.client), ['91007.574999', '8992.425001']);
        const cut = (await makers.c.client.makerQuotes()).items.find((q) => q.quoteId === quotes.c)!;
        assert.deepEqual([cut.status, cut.makerPays.amount, cut.makerReceives.amount, cut.selectedQty, cut.allOrNone], ['SELECTED', '1.5', '4500.000001', '1.5', false]);
        const whole = (await makers.b.client.makerQuotes()).items;
        assert.deepEqual(whole.map((q) => [q.quoteId, q.status, q.selectedQty]), [[quotes.b, 'SELECTED', undefined]], 'each maker sees only its own quote');
        assert.equal((await makers.a.client.makerQuotes()).items[0]!.status, 'NOT_SELECTED');

        // No settlement adapter runs here: every leg fails at the deadline, so the RFQ fails and every lock is released.
        const failed = await waitUntil(() => taker.client.getRfq(rfqId), (r) => r.status === 'FAILED', 'the sweep to fail', { timeoutMs: 15_000, pollMs: 50 });
        assert.equal(failed.failureCode, 'SETTLEMENT_FAILED');
        assert.deepEqual(failed.fills!.map((f) => f.status), ['FAILED', 'FAILED']);
        assert.deepEqual(await usdc(taker.client), ['100000', '0']);
      } finally {
        await h.admin.putSettings({ settlementHeadroomSecs: 60 });
      }
    });

    it('ranks only the quotes the taker names, at the versions it saw', async () => {
      const { taker, makers, rfqId, quotes } = await threeMakerSweep({ minFillQty: '2' });
      await rejects(taker.client.acceptSweep(rfqId, { quotes: [{ quoteId: quotes.a, expectedVersion: 7 }] }), 409, 'QUOTE_VERSION_MISMATCH');
      await rejects(taker.client.acceptSweep(rfqId, { quotes: [{ quoteId: 'q_unknown' }] }), 404, 'NOT_FOUND');
      const accepted = await taker.client.acceptSweep(rfqId, { quotes: [{ quoteId: quotes.c, expectedVersion: 1 }, { quoteId: quotes.a, expectedVersion: 1 }] });
      // A (2990) ranks before C (3000); C is cut to the 1 ETH left.
      assert.deepEqual(accepted.quoteIds, [quotes.a, quotes.c]);
      const rfq = await taker.client.getRfq(rfqId);
      assert.deepEqual(rfq.fills!.map((f) => [f.baseQty, f.quoteQty]), [['2', '5980'], ['1', '3000.000001']]);
      assert.equal((await taker.client.getQuote(quotes.b)).status, 'NOT_SELECTED');
      // Every leg is a win on its maker's scorecard; the maker left out lost nothing measurable against legs of other sizes.
      assert.deepEqual([(await makers.a.client.scorecard()).wins, (await makers.c.client.scorecard()).wins, (await makers.b.client.scorecard()).wins], [1, 1, 0]);
    });

    it('refuses a sweep accept on an RFQ without fill, and an accept that names nothing or two things', async () => {
      const { client } = await fundedTaker();
      const { rfqId } = await client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', windowMs: 60_000 });
      const fields = async (body: Record<string, unknown>) => {
        const error = await rejects(client.signed('POST', `/v1/rfq/requests/${rfqId}/accept`, { body }), 400, 'INVALID_REQUEST');
        return (error.details?.errors as Array<{ field: string; reason: string }>).map((e) => `${e.field}:${e.reason}`);
      };
      assert.deepEqual(await fields({ sweep: true }), ['sweep:notAllowed']);
      assert.deepEqual(await fields({}), ['quoteId:required']);
      assert.deepEqual(await fields({ sweep: true, quoteId: 'q_x' }), ['quoteId:notAllowed']);
    });

    it("admits a promised maker's quote on a SWEEP RFQ: each leg settles in its own maker's mode", async () => {
      const { client } = await fundedTaker();
      const account = privateKeyToAccount(generatePrivateKey());
      await h.admin.putMaker(account.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['promised'] });
      const maker = new RfqClient(h.url);
      await maker.signIn(account);
      const { rfqId } = await client.createRfq(sweepBuy);
      const { quoteId } = await maker.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3000' } });
      assert.equal((await maker.makerQuotes()).items.find((q) => q.quoteId === quoteId)!.settlementMode, 'promised');
    });

    it("a taker's own sweep accept of an autoAccept RFQ before its deadline releases the bound: one lock per leg, nothing more", async () => {
      const { taker, rfqId, quotes } = await threeMakerSweep({ autoAccept: true, windowMs: 60_000 });
      assert.deepEqual(await usdc(taker.client), ['90900', '9100'], 'the bound is locked at submission');
      const accepted = await taker.client.acceptSweep(rfqId, { sweep: true });
      assert.deepEqual(accepted.quoteIds, [quotes.b, quotes.c]);
      assert.deepEqual(await usdc(taker.client), ['91007.574999', '8992.425001'], 'the legs alone are locked');
    });

    it('sweeps an autoAccept RFQ at its deadline: the bound released, one lock per leg; below minFillQty it fails and releases the bound', async () => {
      const { taker, rfqId, quotes } = await threeMakerSweep({ autoAccept: true, windowMs: 1500 });
      assert.deepEqual(await usdc(taker.client), ['90900', '9100'], 'the bound is locked at submission');
      const quoted = await waitUntil(() => taker.client.getRfq(rfqId), (r) => r.status !== 'PENDING', 'the auction to close', { timeoutMs: 10_000, pollMs: 50 });
      assert.equal(quoted.status, 'QUOTED');
      assert.deepEqual(quoted.fills!.map((f) => [f.quoteId, f.baseQty, f.quoteQty]), [[quotes.b, '1.5', '4470'], [quotes.c, '1.5', '4500.000001']]);
      assert.deepEqual(await usdc(taker.client), ['91007.574999', '8992.425001'], 'what the bound kept over the legs went back');
      assert.equal((await taker.client.getQuote(quotes.a)).status, 'NOT_SELECTED');

      const short = await threeMakerSweep({ autoAccept: true, windowMs: 1500 });
      await short.makers.c.client.cancelQuote(short.quotes.c);
      const failed = await waitUntil(() => short.taker.client.getRfq(short.rfqId), (r) => r.status !== 'PENDING', 'the auction to close', { timeoutMs: 10_000, pollMs: 50 });
      assert.deepEqual([failed.status, failed.failureCode], ['FAILED', 'NO_CONFORMING_QUOTE']);
      assert.equal('fills' in failed, false);
      assert.deepEqual(await usdc(short.taker.client), ['100000', '0']);
      assert.deepEqual([(await short.taker.client.getQuote(short.quotes.a)).status, (await short.taker.client.getQuote(short.quotes.b)).status], ['EXPIRED', 'EXPIRED']);
    });
  });
}
