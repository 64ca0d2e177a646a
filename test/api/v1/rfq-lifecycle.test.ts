/**
 * The spot RFQ lifecycle over HTTP: submission rules, maker quotes and re-quotes, the taker's
 * anonymised view, accept, auto-accept at the deadline, cancels, and the ledger invariants after
 * each step.
 */
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { signRequest } from '../../../src/client/http.ts';
import type { RfqClient } from '../../../src/client/rfq-client.ts';
import { rejects } from '../../helpers/rejects.ts';
import { elapse, waitUntil } from '../../helpers/eventually.ts';

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  return waitUntil(read, done, 'condition', { timeoutMs, pollMs: 25 });
}

function balanceOf(balances: Array<{ token: string; available: string; locked: string }>, token: string) {
  return balances.find((b) => b.token === token) ?? { token, available: '0', locked: '0' };
}

for (const backend of backends()) {
  describe(`spot RFQ lifecycle [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => h.close());
    afterEach(async () => {
      const invariants = await h.admin.invariants();
      assert.deepEqual(invariants.violations, []);
      assert.equal(invariants.ok, true);
    });

    async function fundedTaker(usdc = '100000', eth = '100') {
      const taker = await h.newUser();
      await h.fund(taker.account.address, { USDC: usdc, ETH: eth });
      return taker;
    }

    function buyQuote(rfqId: string, price: string, extra: Record<string, unknown> = {}) {
      return { rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: price }, ...extra };
    }

    it('refuses bad RFQ submissions with stable codes and creates nothing', async () => {
      const { client } = await fundedTaker();
      const base = { instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, baseQty: '1' };
      const unknown = await rejects(client.createRfq({ ...base, instrumentId: 'DOGE-USDC-SPOT' }), 400, 'INSTRUMENT_NOT_FOUND');
      // It lists what exists, so the caller sees the id to use.
      assert.deepEqual(unknown.details, { instrumentId: 'DOGE-USDC-SPOT', available: ['BTC-USDC-SPOT', 'ETH-USDC-SPOT'] });
      assert.match(unknown.message, /available: BTC-USDC-SPOT, ETH-USDC-SPOT/);
      const tooPrecise = await rejects(client.createRfq({ ...base, baseQty: '0.0000000000000000001' }), 400, 'AMOUNT_OVER_PRECISE');
      assert.equal(tooPrecise.details?.maxDecimals, 18);
      const usdcPrecise = await rejects(client.createRfq({ ...base, quoteLimit: '10.1234567' }), 400, 'AMOUNT_OVER_PRECISE');
      assert.equal(usdcPrecise.details?.maxDecimals, 6);
      for (const [bad, reason] of [['+1', 'leadingPlus'], ['01', 'leadingZeros'], [' 1', 'whitespace'], ['1e3', 'exponent'], ['.5', 'missingIntegerDigits'], ['5.', 'missingFractionalDigits'], ['0', 'zero'], ['0.000', 'zero'], ['1'.repeat(65), 'tooLong']] as const) {
        const error = await rejects(client.createRfq({ ...base, baseQty: bad }), 400, 'INVALID_REQUEST');
        assert.deepEqual((error.details?.errors as Array<{ field: string; reason: string }>).map((e) => [e.field, e.reason]), [['baseQty', reason]], bad);
      }
      const numeric = await rejects(client.signed('POST', '/v1/rfq/requests', { body: { ...base, baseQty: 1 } }), 400, 'INVALID_REQUEST');
      assert.equal((numeric.details?.errors as Array<{ field: string }>)[0]!.field, 'baseQty');
      const below = await rejects(client.createRfq({ ...base, quoteLimit: '10.02' }), 400, 'BELOW_MIN_NOTIONAL');
      assert.equal(below.details?.minQuoteNotional, '10');
      await client.createRfq({ ...base, quoteLimit: '10.025', windowMs: 1000 });
      await rejects(client.createRfq({ ...base, windowMs: 1000, windowSecs: 1 }), 400, 'INVALID_REQUEST');
      await rejects(client.createRfq({ ...base, autoAccept: true }), 400, 'INVALID_REQUEST');
      await rejects(client.createRfq({ ...base, autoAccept: true, quoteLimit: '1000000000' }), 400, 'INSUFFICIENT_BALANCE');
      const missing = await rejects(client.signed('POST', '/v1/rfq/requests', { body: { side: 'BUY' } }), 400, 'INVALID_REQUEST');
      const fields = (missing.details?.errors as Array<{ field: string; reason: string }>).map((e) => `${e.field}:${e.reason}`);
      assert.ok(fields.includes('instrumentId:required') && fields.includes('baseQty:required'), fields.join());
      await rejects(client.signed('POST', '/v1/rfq/requests', { rawBody: '{"instrumentId":', headers: { 'content-type': 'application/json' } }), 400, 'INVALID_REQUEST');
      const page = await client.listRfqs();
      assert.equal(page.items.length, 1, 'only the valid RFQ exists');
      const { balances } = await client.balances();
      assert.equal(balanceOf(balances, 'USDC').locked, '0');
    });

    it('clamps the window and derives settlementDeadline', async () => {
      const { client } = await fundedTaker();
      const before = Date.now();
      const created = await client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', windowMs: 10 });
      assert.ok(created.auctionEndsAt - before >= 1000 && created.auctionEndsAt - before < 2000, 'clamped up to 1 s');
      assert.equal(created.expiresAt, created.auctionEndsAt);
      const rfq = await client.getRfq(created.rfqId);
      assert.equal(rfq.settlementDeadline, Math.ceil(rfq.auctionEndsAt / 1000) + 60);
      const long = await client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', windowSecs: 3600 });
      assert.ok(long.auctionEndsAt - Date.now() <= 30_000, 'clamped down to maxWindowMs');
      const defaulted = await client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1' });
      assert.ok(defaulted.auctionEndsAt - Date.now() > 28_000);
      await client.cancelRfq(long.rfqId);
      await client.cancelRfq(defaulted.rfqId);
    });

    it('replays an idempotent submission and refuses the key for a different request', async () => {
      const { client } = await fundedTaker();
      const idempotencyKey = randomUUID();
      const body = { instrumentId: 'ETH-USDC-SPOT', side: 'SELL' as const, baseQty: '2', autoAccept: true, windowMs: 5000, idempotencyKey };
      const first = await client.createRfq(body);
      const second = await client.createRfq(body);
      assert.deepEqual(second, first);
      await rejects(client.createRfq({ ...body, baseQty: '3' }), 409, 'IDEMPOTENCY_KEY_REUSED');
      const { balances } = await client.balances();
      assert.equal(balanceOf(balances, 'ETH').locked, '2', 'locked once');
      await client.cancelRfq(first.rfqId);
      assert.equal(balanceOf((await client.balances()).balances, 'ETH').locked, '0');
    });

    it('runs a taker-driven BUY: quotes, re-quote, anonymised view, accept, version check, settlement failure at the deadline', async () => {
      await h.admin.putSettings({ settlementHeadroomSecs: 1 });
      try {
        const { client: taker } = await fundedTaker('10000');
        const makerA = await h.newMaker();
        const makerB = await h.newMaker();
        const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 4000 });
        const open = await makerA.client.openRfqs();
        const seen = open.items.find((r) => r.id === rfqId)!;
        assert.ok(seen, 'maker sees the open RFQ');
        assert.ok(!('quoteLimit' in seen), 'makers never see quoteLimit');
        assert.equal(seen.baseQty, '1.5');

        const a1 = await makerA.client.submitQuote(buyQuote(rfqId, '4500'));
        assert.deepEqual([a1.status, a1.version], ['SUBMITTED', 1]);
        const b1 = await makerB.client.submitQuote(buyQuote(rfqId, '4400', { acceptableForMs: 60_000 }));
        const a2 = await makerA.client.submitQuote(buyQuote(rfqId, '4300'));
        assert.equal(a2.quoteId, a1.quoteId, 're-quote keeps the id');
        assert.equal(a2.version, 2, 're-quote advances the version');

        await rejects(makerA.client.submitQuote(buyQuote(rfqId, '4300', { makerPays: { token: 'ETH', amount: '1.4' } })), 400, 'LEGS_MISMATCH');
        await rejects(makerA.client.submitQuote(buyQuote(rfqId, '4300', { makerPays: { token: 'USDC', amount: '1.5' } })), 400, 'LEGS_MISMATCH');
        await rejects(makerA.client.submitQuote(buyQuote(rfqId, '4300.0000001')), 400, 'AMOUNT_OVER_PRECISE');
        await rejects(makerA.client.submitQuote(buyQuote(rfqId, '4300', { side: 'SELL' })), 400, 'LEGS_MISMATCH');

        const quotes = await taker.rfqQuotes(rfqId);
        assert.equal(quotes.items.length, 2);
        for (const q of quotes.items) {
          assert.ok(!('maker' in q) && !('makerId' in q) && !('permitSignature' in q) && !('spender' in q));
        }
        const qa = quotes.items.find((q) => q.quoteId === a1.quoteId)!;
        assert.equal(qa.takerTotal, '4310.75', '4300 + 0.25% fee');
        assert.equal(qa.version, 2);

        await rejects(taker.accept(rfqId, { quoteId: a1.quoteId, expectedVersion: 1 }), 409, 'QUOTE_VERSION_MISMATCH');
        const accepted = await taker.accept(rfqId, { quoteId: a1.quoteId, expectedVersion: 2 });
        assert.equal(accepted.status, 'QUOTED');
        const replay = await taker.accept(rfqId, { quoteId: a1.quoteId, expectedVersion: 2 });
        assert.equal(replay.status, 'QUOTED', 'retried accept replays the 202');
        await rejects(taker.accept(rfqId, { quoteId: b1.quoteId }), 409, 'RFQ_NOT_PENDING');
        await rejects(makerB.client.submitQuote(buyQuote(rfqId, '4000')), 409, 'RFQ_NOT_PENDING');

        const rfq = await taker.getRfq(rfqId);
        assert.equal(rfq.status, 'QUOTED');
        assert.ok(rfq.quotedAt);
        const usdc = balanceOf((await taker.balances()).balances, 'USDC');
        assert.deepEqual([usdc.available, usdc.locked], ['5689.25', '4310.75']);

        const winner = (await makerA.client.makerQuotes()).items.find((q) => q.quoteId === a1.quoteId)!;
        assert.equal(winner.status, 'SELECTED');
        assert.equal(winner.settlementDeadline, rfq.settlementDeadline);
        const loser = (await makerB.client.makerQuotes({ status: ['NOT_SELECTED'] })).items;
        assert.deepEqual(loser.map((q) => q.quoteId), [b1.quoteId]);
        await rejects(makerA.client.cancelQuote(a1.quoteId), 409, 'QUOTE_NOT_OPEN');

        // No settlement adapter runs in this test, so the RFQ must fail at its deadline and release the lock.
        const failed = await until(() => taker.getRfq(rfqId), (r) => r.status === 'FAILED', 10_000);
        assert.equal(failed.failureCode, 'SETTLEMENT_FAILED');
        const released = balanceOf((await taker.balances()).balances, 'USDC');
        assert.deepEqual([released.available, released.locked], ['10000', '0']);
        assert.equal((await makerA.client.makerQuotes({ status: ['FAILED'] })).items[0]?.quoteId, a1.quoteId);
      } finally {
        await h.admin.putSettings({ settlementHeadroomSecs: 60 });
      }
    });

    it('refuses accepts outside the maker window, the limit or the auction, and on someone else\'s RFQ', async () => {
      const { client: taker } = await fundedTaker('10000');
      const other = await fundedTaker();
      const maker = await h.newMaker();
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '4000', windowMs: 1500 });
      const over = await maker.client.submitQuote(buyQuote(rfqId, '3999'));
      const overError = await rejects(taker.accept(rfqId, { quoteId: over.quoteId }), 409, 'QUOTE_NOT_ACCEPTABLE');
      assert.equal(overError.details?.reason, 'quoteLimit');
      const maker2 = await h.newMaker();
      const brief = await maker2.client.submitQuote(buyQuote(rfqId, '3000', { acceptableForMs: 1 }));
      await elapse(5, 'past the quote\'s 1 ms maker window');
      assert.equal((await rejects(taker.accept(rfqId, { quoteId: brief.quoteId }), 409, 'QUOTE_NOT_ACCEPTABLE')).details?.reason, 'makerWindow');
      await rejects(other.client.accept(rfqId, { quoteId: brief.quoteId }), 404, 'NOT_FOUND');
      await rejects(other.client.getRfq(rfqId), 404, 'NOT_FOUND');
      await rejects(taker.accept(rfqId, { quoteId: 'qt_nope' }), 404, 'NOT_FOUND');
      await elapse(1600, 'past the 1.5 s auction window');
      await rejects(taker.accept(rfqId, { quoteId: over.quoteId }), 409, 'AUCTION_CLOSED');
      const closed = await until(() => taker.getRfq(rfqId), (r) => r.status !== 'PENDING');
      assert.equal(closed.status, 'CANCELLED', 'taker-driven auction without accept ends CANCELLED');
      assert.equal(closed.failureReason, undefined);
      const expired = await maker.client.makerQuotes({ status: ['EXPIRED'] });
      assert.ok(expired.items.some((q) => q.quoteId === over.quoteId));
    });

    it('auto-accepts the best conforming SELL quote at the deadline and re-locks exactly', async () => {
      const { client: taker } = await fundedTaker('0', '10');
      const makers = [await h.newMaker(), await h.newMaker(), await h.newMaker()];
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'SELL', baseQty: '2', quoteLimit: '5000', autoAccept: true, windowMs: 1200 });
      assert.equal(balanceOf((await taker.balances()).balances, 'ETH').locked, '2');
      const open = (await makers[0]!.client.openRfqs()).items.find((r) => r.id === rfqId)!;
      assert.equal(open.baseQty, '1.995', 'SELL shows baseQty minus the 0.25% fee');
      const sell = (price: string) => ({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'SELL' as const, makerPays: { token: 'USDC', amount: price }, makerReceives: { token: 'ETH', amount: '1.995' } });
      await rejects(makers[0]!.client.submitQuote({ ...sell('6000'), makerReceives: { token: 'ETH', amount: '2' } }), 400, 'LEGS_MISMATCH');
      await makers[0]!.client.submitQuote(sell('4999'));
      const best = await makers[1]!.client.submitQuote(sell('6100'));
      await makers[2]!.client.submitQuote(sell('6000'));
      const quotes = await taker.rfqQuotes(rfqId);
      assert.ok(quotes.items.every((q) => q.takerTotal === '2'), 'SELL takerTotal equals baseQty for every quote');
      const rfq = await until(() => taker.getRfq(rfqId), (r) => r.status !== 'PENDING');
      assert.equal(rfq.status, 'QUOTED');
      const selected = await taker.rfqQuotes(rfqId, { status: 'SELECTED' });
      assert.deepEqual(selected.items.map((q) => q.quoteId), [best.quoteId]);
      assert.equal(balanceOf((await taker.balances()).balances, 'ETH').locked, '2');
      const notSelected = await taker.rfqQuotes(rfqId, { status: 'NOT_SELECTED' });
      assert.equal(notSelected.items.length, 2);
    });

    it('passes over the quotes of a maker suspended or made inactive since it quoted: the close takes the next best, an accept is refused', async () => {
      const { client: taker } = await fundedTaker('20000');
      const [suspended, inactive, fair] = [await h.newMaker(), await h.newMaker(), await h.newMaker()];
      const auto = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', autoAccept: true, windowMs: 1500 });
      const alone = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', autoAccept: true, windowMs: 1500 });
      const driven = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 10_000 });
      // The two barred makers quote best (a BUY: the lowest price wins).
      const quoted = async (rfqId: string) => ({
        suspended: await suspended.client.submitQuote(buyQuote(rfqId, '3900')),
        inactive: await inactive.client.submitQuote(buyQuote(rfqId, '3950')),
        fair: await fair.client.submitQuote(buyQuote(rfqId, '4000')),
      });
      const onAuto = await quoted(auto.rfqId);
      const onDriven = await quoted(driven.rfqId);
      const onlyBarred = await suspended.client.submitQuote(buyQuote(alone.rfqId, '3900'));
      // A suspension is what failed settlements write (permit2-settlement.test.ts); the store is written to the same effect here.
      await h.node.store.db.updateTable('makers').set({ suspended_until: Date.now() + 60_000 }).where('maker_id', '=', suspended.makerId).execute();
      await h.admin.putMaker(inactive.account.address, { active: false, pairs: ['ETH-USDC', 'BTC-USDC'], settlementModes: ['permit2'] });

      for (const barred of [onDriven.suspended, onDriven.inactive]) {
        const refused = await rejects(taker.accept(driven.rfqId, { quoteId: barred.quoteId }), 409, 'QUOTE_NOT_ACCEPTABLE');
        assert.equal(refused.details?.reason, 'makerNotApproved');
      }
      assert.equal((await taker.getRfq(driven.rfqId)).status, 'PENDING', 'a refused accept changes nothing');
      assert.equal((await taker.accept(driven.rfqId, { quoteId: onDriven.fair.quoteId })).status, 'QUOTED');

      const closed = await until(() => taker.getRfq(auto.rfqId), (r) => r.status !== 'PENDING');
      assert.equal(closed.status, 'QUOTED');
      assert.deepEqual((await taker.rfqQuotes(auto.rfqId, { status: 'SELECTED' })).items.map((q) => q.quoteId), [onAuto.fair.quoteId]);
      assert.deepEqual(new Set((await taker.rfqQuotes(auto.rfqId, { status: 'NOT_SELECTED' })).items.map((q) => q.quoteId)), new Set([onAuto.suspended.quoteId, onAuto.inactive.quoteId]));
      const noneLeft = await until(() => taker.getRfq(alone.rfqId), (r) => r.status !== 'PENDING');
      assert.deepEqual([noneLeft.status, noneLeft.failureCode], ['FAILED', 'NO_CONFORMING_QUOTE']);
      assert.deepEqual((await taker.rfqQuotes(alone.rfqId, { status: 'EXPIRED' })).items.map((q) => q.quoteId), [onlyBarred.quoteId]);
      // The taker's lock is the two winners' cost (the fair maker's price), not the barred best price's.
      const cost = (await taker.rfqQuotes(auto.rfqId, { status: 'SELECTED' })).items[0]!.takerTotal;
      assert.equal(Number(balanceOf((await taker.balances()).balances, 'USDC').locked), 2 * Number(cost));
    });

    it('fails an auto-accept auction with no conforming quote and releases the lock', async () => {
      const { client: taker } = await fundedTaker('1000');
      const maker = await h.newMaker();
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '900', autoAccept: true, windowMs: 1000 });
      assert.equal(balanceOf((await taker.balances()).balances, 'USDC').locked, '900');
      await maker.client.submitQuote(buyQuote(rfqId, '950'));
      const rfq = await until(() => taker.getRfq(rfqId), (r) => r.status !== 'PENDING');
      assert.equal(rfq.status, 'FAILED');
      assert.ok(rfq.failureReason);
      const usdc = balanceOf((await taker.balances()).balances, 'USDC');
      assert.deepEqual([usdc.available, usdc.locked], ['1000', '0']);
      assert.equal((await maker.client.makerQuotes()).items[0]!.status, 'EXPIRED');
    });

    it('lets the taker cancel a PENDING RFQ and a maker cancel its open quote', async () => {
      const { client: taker } = await fundedTaker();
      const maker = await h.newMaker();
      const other = await h.newMaker();
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 10_000 });
      const q = await maker.client.submitQuote(buyQuote(rfqId, '4000'));
      await rejects(other.client.cancelQuote(q.quoteId), 403, 'FORBIDDEN');
      await rejects(maker.client.cancelQuote('qt_missing'), 404, 'NOT_FOUND');
      const cancelledQuote = await maker.client.cancelQuote(q.quoteId);
      assert.equal(cancelledQuote.status, 'CANCELLED');
      await rejects(maker.client.cancelQuote(q.quoteId), 409, 'QUOTE_NOT_OPEN');
      await rejects(maker.client.submitQuote(buyQuote(rfqId, '3900')), 409, 'QUOTE_NOT_OPEN');
      assert.equal((await taker.getQuote(q.quoteId)).status, 'CANCELLED');
      await rejects(taker.accept(rfqId, { quoteId: q.quoteId }), 409, 'QUOTE_NOT_ACCEPTABLE');
      const cancelled = await taker.cancelRfq(rfqId);
      assert.equal(cancelled.status, 'CANCELLED');
      assert.ok(cancelled.failureReason);
      await rejects(taker.cancelRfq(rfqId), 409, 'RFQ_NOT_PENDING');
      const listed = await taker.listRfqs({ status: 'CANCELLED' });
      assert.ok(listed.items.some((r) => r.id === rfqId));
    });

    it('refuses self-quotes, unapproved pairs and inactive makers', async () => {
      const maker = await h.newMaker(['BTC-USDC']);
      await h.admin.adjustBalance({ address: maker.account.address, token: 'USDC', amount: '1000', memo: 'funding' });
      const { rfqId: own } = await maker.client.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'BUY', baseQty: '1', windowMs: 5000 });
      await rejects(maker.client.submitQuote({ rfqId: own, instrumentId: 'BTC-USDC-SPOT', side: 'BUY', makerPays: { token: 'BTC', amount: '1' }, makerReceives: { token: 'USDC', amount: '100' } }), 400, 'SELF_QUOTE');
      const { client: taker } = await fundedTaker();
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 5000 });
      await rejects(maker.client.submitQuote(buyQuote(rfqId, '4000')), 403, 'MAKER_NOT_APPROVED');
      assert.ok(!(await maker.client.openRfqs()).items.some((r) => r.id === rfqId), 'unapproved pair is not listed');
      await h.admin.putMaker(maker.account.address, { active: false, pairs: ['ETH-USDC'], settlementModes: ['permit2'] });
      await rejects(maker.client.submitQuote(buyQuote(rfqId, '4000')), 403, 'MAKER_NOT_APPROVED');
      await taker.cancelRfq(rfqId);
      await maker.client.cancelRfq(own);
    });

    it('refuses a replayed quote request, whether the original was accepted or refused', async () => {
      const { client: taker } = await fundedTaker();
      const maker = await h.newMaker();
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 10_000 });
      const send = async (body: unknown, timestamp: number) => {
        const text = JSON.stringify(body);
        const headers = { ...signRequest(maker.client.credentials!, timestamp, 'POST', '/v1/rfq/quotes', '', text), 'content-type': 'application/json' };
        const response = await fetch(`${h.url}/v1/rfq/quotes`, { method: 'POST', headers, body: text });
        return { status: response.status, body: (await response.json()) as { error?: { code: string }; version?: number } };
      };
      const ts = Date.now();
      const first = await send(buyQuote(rfqId, '4000'), ts);
      assert.equal(first.status, 202);
      const replay = await send(buyQuote(rfqId, '4000'), ts);
      assert.deepEqual([replay.status, replay.body.error?.code], [401, 'TIMESTAMP_REUSED']);
      assert.equal((await maker.client.makerQuotes()).items[0]!.version, 1, 'the replay changed nothing');
      const refused = await send(buyQuote('rfq_missing', '4000'), ts + 1);
      assert.deepEqual([refused.status, refused.body.error?.code], [404, 'NOT_FOUND']);
      const refusedReplay = await send(buyQuote('rfq_missing', '4000'), ts + 1);
      assert.deepEqual([refusedReplay.status, refusedReplay.body.error?.code], [401, 'TIMESTAMP_REUSED']);
      await taker.cancelRfq(rfqId);
    });

    it('refuses a quote signed with a key revoked in the store while this node still caches it, and writes nothing', async () => {
      const { client: taker } = await fundedTaker();
      const maker = await h.newMaker();
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 10_000 });
      assert.equal((await maker.client.submitQuote(buyQuote(rfqId, '4000'))).version, 1); // the key is now cached
      // Revoked as another node would, behind this node's credential cache: the replay claim refuses it.
      await h.node.store.db.updateTable('api_keys').set({ revoked_at: Date.now() }).where('access_key', '=', maker.client.credentials!.accessKey).execute();
      await rejects(maker.client.submitQuote(buyQuote(rfqId, '3900')), 401, 'UNAUTHENTICATED');
      const quotes = await h.node.store.db.selectFrom('quotes').select(['version', 'maker_pays_amount', 'maker_receives_amount']).where('rfq_id', '=', rfqId).execute();
      assert.deepEqual(quotes.map((q) => q.version), [1], 'the re-quote was not written');
      await taker.cancelRfq(rfqId);
    });

    it('refuses a replayed accept request, whether the original was accepted or refused', async () => {
      const { client: taker } = await fundedTaker();
      const maker = await h.newMaker();
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 10_000 });
      const { quoteId } = await maker.client.submitQuote(buyQuote(rfqId, '4000'));
      const path = `/v1/rfq/requests/${rfqId}/accept`;
      const send = async (body: unknown, timestamp: number) => {
        const text = JSON.stringify(body);
        const headers = { ...signRequest(taker.credentials!, timestamp, 'POST', path, '', text), 'content-type': 'application/json' };
        const response = await fetch(`${h.url}${path}`, { method: 'POST', headers, body: text });
        return { status: response.status, code: ((await response.json()) as { error?: { code: string } }).error?.code };
      };
      const ts = Date.now();
      assert.deepEqual(await send({ quoteId, expectedVersion: 7 }, ts), { status: 409, code: 'QUOTE_VERSION_MISMATCH' });
      assert.deepEqual(await send({ quoteId, expectedVersion: 7 }, ts), { status: 401, code: 'TIMESTAMP_REUSED' });
      assert.deepEqual(await send({ quoteId, expectedVersion: 1 }, ts + 1), { status: 202, code: undefined });
      assert.deepEqual(await send({ quoteId, expectedVersion: 1 }, ts + 1), { status: 401, code: 'TIMESTAMP_REUSED' });
      assert.deepEqual(await send({ quoteId, expectedVersion: 1 }, ts + 2), { status: 202, code: undefined }, 'a retry with a fresh timestamp replays the 202');
    });

    it('group-commits concurrent quotes: each answered on its own, versions and frames in order', async () => {
      const { client: taker } = await fundedTaker();
      const makers = await Promise.all(Array.from({ length: 6 }, () => h.newMaker()));
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 10_000 });
      const { rfqId: closedId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 10_000 });
      await taker.cancelRfq(closedId);
      // Every maker quotes twice at once and once on a cancelled RFQ; they share batches.
      const results = await Promise.allSettled(
        makers.flatMap((m, i) => [
          m.client.submitQuote(buyQuote(rfqId, `${4000 + i}`)),
          m.client.submitQuote(buyQuote(rfqId, `${4100 + i}`)),
          m.client.submitQuote(buyQuote(closedId, '4000')),
        ]),
      );
      results.forEach((result, index) => {
        if (index % 3 === 2) {
          assert.equal(result.status, 'rejected');
          assert.equal((result as PromiseRejectedResult).reason.code, 'RFQ_NOT_PENDING');
        } else {
          assert.equal(result.status, 'fulfilled', String((result as PromiseRejectedResult).reason));
        }
      });
      for (const [i, m] of makers.entries()) {
        const ok = [results[3 * i], results[3 * i + 1]].map((r) => (r as PromiseFulfilledResult<{ quoteId: string; version: number }>).value);
        assert.equal(ok[0]!.quoteId, ok[1]!.quoteId, 'one quote per maker and RFQ');
        assert.deepEqual(ok.map((r) => r.version).sort(), [1, 2]);
        const frames = await h.node.store.db
          .selectFrom('outbox')
          .select(['seq', 'frame'])
          .where('account_id', '=', m.client.login!.userId)
          .where('topic', '=', 'quoteStatus')
          .orderBy('seq')
          .execute();
        assert.deepEqual(frames.map((f) => f.seq), [1, 2]);
        assert.deepEqual(frames.map((f) => (f.frame as { version: number }).version), [1, 2], 'frames carry the versions in order');
      }
      const quotes = await taker.rfqQuotes(rfqId);
      assert.equal(quotes.items.length, makers.length);
      const updates = await h.node.store.db.selectFrom('outbox').select('seq').where('account_id', '=', taker.login!.userId).where('topic', '=', 'quotes').orderBy('seq').execute();
      assert.deepEqual(updates.map((u) => u.seq), Array.from({ length: 2 * makers.length }, (_, i) => i + 1), 'the taker gets one gap-free quoteUpdate per write');
      await taker.cancelRfq(rfqId);
    });

    it('pages listings with opaque cursors', async () => {
      const { client: taker } = await fundedTaker();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await taker.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'BUY', baseQty: '0.1', windowMs: 20_000 })).rfqId);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await taker.listRfqs({ limit: 2, ...(cursor ? { cursor } : {}) });
        seen.push(...page.items.map((r) => r.id));
        cursor = page.hasMore ? page.nextCursor! : undefined;
        if (!page.hasMore) assert.equal(page.nextCursor, undefined);
      } while (cursor);
      assert.deepEqual(seen, [...ids].reverse());
      await rejects(taker.listRfqs({ cursor: 'garbage' }), 400, 'INVALID_REQUEST');
      await rejects(taker.listRfqs({ limit: 101 }), 400, 'INVALID_REQUEST');
      for (const id of ids) await taker.cancelRfq(id);
    });
  });
}

export type { RfqClient };
