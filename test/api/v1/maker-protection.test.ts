/**
 * Market-maker protection (DESIGN.md section 11), over HTTP and WebSocket on each
 * backend: the settings' surface, a trip by count and by notional (the maker's other open quotes
 * on the instrument cancelled as by its own cancel, takers told, a `protection` frame, new quotes
 * refused until reset), the selected quotes untouched, and two accepts at once on the last unit of
 * headroom (exactly one selects and trips it).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { useWsHarness } from '../../helpers/ws-harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { INSTRUMENT, fundedTaker, quotedRfq } from '../../helpers/protection.ts';
import { subscribe, type Frame } from '../../ws/test-socket.ts';
import { ApiError } from '../../../src/client/http.ts';
import { eventually } from '../../helpers/eventually.ts';

for (const backend of backends()) {
  describe(`market-maker protection [${backend}]`, () => {
    const ws = useWsHarness(backend);

    it('PUT replaces one instrument\'s setting, GET lists them, reset of none is 404, bad input is 400', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      await rejects(maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 1000 }), 400, 'INVALID_REQUEST');
      await rejects(maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 1000, maxSelectedNotional: '1.0000001' }), 400, 'AMOUNT_OVER_PRECISE');
      await rejects(maker.client.putProtection({ instrumentId: 'NOPE-USDC-SPOT', windowMs: 1000, maxSelectedQuotes: 1 }), 400, 'INSTRUMENT_NOT_FOUND');
      await rejects(maker.client.resetProtection(INSTRUMENT), 404, 'NOT_FOUND');
      await maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 1000, maxSelectedQuotes: 3 });
      const replaced = await maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedNotional: '2500.5' });
      assert.deepEqual(replaced, { instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedQuotes: null, maxSelectedNotional: '2500.5', triggeredAt: null, reason: null, frozenMs: null });
      assert.deepEqual((await maker.client.protection()).items, [replaced]);
      const taker = await ws.h.newUser();
      await rejects(taker.client.protection(), 403, 'MAKER_SCOPE_REQUIRED');
    });

    it('a trip by count cancels the maker\'s other open quotes, tells it and the takers, refuses new quotes until reset, and leaves the selected ones', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC', 'BTC-USDC']);
      const taker = await fundedTaker(ws.h);
      await maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedQuotes: 2 });
      const makerSocket = await ws.session(maker.client);
      await subscribe(makerSocket, { topic: 'quoteStatus' });
      const takerSocket = await ws.session(taker);
      await subscribe(takerSocket, { topic: 'quotes' });
      const rfqs = [];
      for (let i = 0; i < 4; i++) rfqs.push(await quotedRfq(taker, maker.client));
      // A quote on another instrument is outside this setting.
      const btc = await taker.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'BUY', baseQty: '0.1', quoteLimit: '10000', autoAccept: false, windowMs: 60_000 });
      const btcQuote = await maker.client.submitQuote({ rfqId: btc.rfqId, instrumentId: 'BTC-USDC-SPOT', side: 'BUY', makerPays: { token: 'BTC', amount: '0.1' }, makerReceives: { token: 'USDC', amount: '6000' } });

      await taker.accept(rfqs[0]!.rfqId, { quoteId: rfqs[0]!.quoteId });
      assert.equal((await maker.client.protection()).items[0]!.triggeredAt, null, 'one selection of two: armed');
      await taker.accept(rfqs[1]!.rfqId, { quoteId: rfqs[1]!.quoteId });

      const frame = await makerSocket.next((f) => f.kind === 'protection');
      assert.equal(frame.instrumentId, INSTRUMENT);
      assert.equal(frame.reason, 'maxSelectedQuotes');
      assert.equal(typeof frame.triggeredAt, 'number');
      const cancelled = new Set<unknown>();
      while (cancelled.size < 2) cancelled.add((await makerSocket.next((f) => f.kind === 'quoteStatus' && f.status === 'CANCELLED', 2000)).quoteId);
      assert.deepEqual([...cancelled].sort(), [rfqs[2]!.quoteId, rfqs[3]!.quoteId].sort());
      const told = new Set<unknown>();
      while (told.size < 2) told.add((await takerSocket.next((f) => f.kind === 'quoteUpdate' && f.status === 'CANCELLED', 2000)).quoteId);
      assert.deepEqual([...told].sort(), [...cancelled].sort());

      const statuses = new Map((await maker.client.makerQuotes({ limit: 100 })).items.map((q) => [q.quoteId, q.status]));
      assert.equal(statuses.get(rfqs[0]!.quoteId), 'SELECTED');
      assert.equal(statuses.get(rfqs[1]!.quoteId), 'SELECTED');
      assert.equal(statuses.get(btcQuote.quoteId), 'SUBMITTED');

      const fresh = await taker.createRfq({ instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: false, windowMs: 60_000 });
      const quote = { rfqId: fresh.rfqId, instrumentId: INSTRUMENT, side: 'BUY' as const, makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3000' } };
      const refused = await rejects(maker.client.submitQuote(quote), 409, 'MAKER_PROTECTION_TRIGGERED');
      assert.deepEqual([refused.details?.instrumentId, refused.details?.reason], [INSTRUMENT, 'maxSelectedQuotes']);
      const listed = (await maker.client.protection()).items[0]!;
      assert.deepEqual([listed.triggeredAt, listed.reason], [frame.triggeredAt, 'maxSelectedQuotes']);
      const operator = await ws.h.admin.getMaker(maker.account.address);
      assert.deepEqual(operator.protection.map((p) => [p.instrumentId, p.triggeredAt]), [[INSTRUMENT, frame.triggeredAt]]);

      const reset = await maker.client.resetProtection(INSTRUMENT);
      assert.deepEqual([reset.triggeredAt, reset.reason], [null, null]);
      const requoted = await maker.client.submitQuote(quote);
      assert.equal(requoted.status, 'SUBMITTED');
      // The reset started the window afresh: one more selection does not trip it again.
      await taker.accept(fresh.rfqId, { quoteId: requoted.quoteId });
      assert.equal((await maker.client.protection()).items[0]!.triggeredAt, null);
    });

    it('a trip by notional counts the quote-token leg of each selection', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      const taker = await fundedTaker(ws.h);
      await maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedNotional: '6000' });
      const first = await quotedRfq(taker, maker.client, '2999.999999');
      // 2999.999999 + 3000.000001 is exactly 6000: reaching the limit trips it.
      const second = await quotedRfq(taker, maker.client, '3000.000001');
      const third = await quotedRfq(taker, maker.client, '3000');
      await taker.accept(first.rfqId, { quoteId: first.quoteId });
      assert.equal((await maker.client.protection()).items[0]!.triggeredAt, null, '2999.999999 of 6000');
      await taker.accept(second.rfqId, { quoteId: second.quoteId });
      const tripped = (await maker.client.protection()).items[0]!;
      assert.equal(tripped.reason, 'maxSelectedNotional', 'the second selection brings the notional to 6000');
      await rejects(taker.accept(third.rfqId, { quoteId: third.quoteId }), 409, 'QUOTE_NOT_ACCEPTABLE');
    });

    it('the auction close counts autoAccept selections and passes over a tripped maker', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      const rival = await ws.h.newMaker(['ETH-USDC']);
      const taker = await fundedTaker(ws.h);
      await maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedQuotes: 1 });
      const quote = (client: typeof maker.client, rfqId: string, price: string) =>
        client.submitQuote({ rfqId, instrumentId: INSTRUMENT, side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: price } });
      const rfqs = [];
      for (let i = 0; i < 2; i++) {
        const rfq = await taker.createRfq({ instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: true, windowMs: 1500 });
        // The protected maker is the best price on both; the rival is there to be chosen instead.
        const best = await quote(maker.client, rfq.rfqId, '2990');
        const other = await quote(rival.client, rfq.rfqId, '3010');
        rfqs.push({ rfqId: rfq.rfqId, best: best.quoteId, other: other.quoteId });
      }
      const done = (rfqId: string) => eventually(() => taker.getRfq(rfqId), (rfq) => rfq.status !== 'PENDING', 10_000);
      const closed = [await done(rfqs[0]!.rfqId), await done(rfqs[1]!.rfqId)];
      assert.deepEqual(closed.map((r) => r.status), ['QUOTED', 'QUOTED']);
      const winners = closed.map((r) => (r as unknown as { selectedQuoteId?: string }).selectedQuoteId ?? null);
      const makerQuotes = new Map((await maker.client.makerQuotes({ limit: 100 })).items.map((q) => [q.quoteId, q.status]));
      const selectedOfMaker = rfqs.filter((r) => makerQuotes.get(r.best) === 'SELECTED');
      assert.equal(selectedOfMaker.length, 1, `one of the protected maker's quotes selected (${JSON.stringify([...makerQuotes])}, ${JSON.stringify(winners)})`);
      const rivalQuotes = new Map((await rival.client.makerQuotes({ limit: 100 })).items.map((q) => [q.quoteId, q.status]));
      const passedOver = rfqs.find((r) => makerQuotes.get(r.best) !== 'SELECTED')!;
      assert.equal(rivalQuotes.get(passedOver.other), 'SELECTED', 'the rival won where the tripped maker was passed over');
      assert.equal((await maker.client.protection()).items[0]!.reason, 'maxSelectedQuotes');
    });

    it('two accepts at once on the last unit of headroom: exactly one selects and trips it', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      const makerSocket = await ws.session(maker.client);
      await subscribe(makerSocket, { topic: 'quoteStatus' });
      await maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedQuotes: 2 });
      const takers = [await fundedTaker(ws.h), await fundedTaker(ws.h)];
      for (let round = 0; round < 4; round++) {
        const warm = await quotedRfq(takers[0]!, maker.client);
        await takers[0]!.accept(warm.rfqId, { quoteId: warm.quoteId });
        const a = await quotedRfq(takers[0]!, maker.client);
        const b = await quotedRfq(takers[1]!, maker.client);
        const outcomes = await Promise.allSettled([takers[0]!.accept(a.rfqId, { quoteId: a.quoteId }), takers[1]!.accept(b.rfqId, { quoteId: b.quoteId })]);
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        assert.equal(won.length, 1, `round ${round}: one accept wins`);
        assert.ok(lost[0]!.reason instanceof ApiError && lost[0]!.reason.code === 'QUOTE_NOT_ACCEPTABLE', String(lost[0]!.reason));
        const trips: Frame[] = [];
        trips.push(await makerSocket.next((f) => f.kind === 'protection'));
        const statuses = new Map((await maker.client.makerQuotes({ limit: 100 })).items.map((q) => [q.quoteId, q.status]));
        assert.equal([statuses.get(a.quoteId), statuses.get(b.quoteId)].filter((s) => s === 'SELECTED').length, 1);
        await maker.client.resetProtection(INSTRUMENT);
        // Exactly one trip per round: nothing else arrives before the next round's.
        const extra = makerSocket.frames.filter((f) => f.kind === 'protection');
        assert.deepEqual(extra, [], `round ${round}: one protection frame`);
        makerSocket.frames.length = 0;
        assert.equal(trips.length, 1);
      }
    });
  });
}
