/**
 * Perp SWEEP end to end (DESIGN.md section 14, "Perp") over HTTP against the venue simulator, on
 * both databases: one maker ALO per selected quote at its own price, then one taker IOC for the
 * selected size at the worst selected price; a cut quote's order rests whole and fills only its
 * cut; a maker order the venue refuses mid-sweep is replaced by the next backup in rank; a taker
 * order signed over anything but the selection is a refusal; too little resting ends the RFQ
 * without the taker's order.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, waitUntil } from '../../helpers/eventually.ts';
import { backends } from '../../helpers/backends.ts';
import { ended, makerOrders, PerpFixture, takerOrder, type VenueUser } from '../../helpers/perp.ts';

type Leg = { maker: VenueUser; size: string; price: string; allOrNone?: boolean };

for (const backend of backends()) {
  describe(`perp sweep [${backend}]`, () => {
    let f: PerpFixture;
    /** The service's clock, which one case sets past the settlement deadline. */
    const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };

    before(async () => {
      f = await PerpFixture.start(backend, { clock });
    });
    after(async () => {
      await f?.close();
    });

    /** A SWEEP RFQ of `baseQty` ETH with one quote per leg (USDC = size x price exactly), in order. */
    async function sweepAuction(taker: VenueUser, side: 'BUY' | 'SELL', baseQty: string, legs: Leg[], minFillQty?: string) {
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-PERP', side, baseQty, quoteLimit: side === 'BUY' ? '2000' : '300', windowMs: 60_000, fill: 'SWEEP', ...(minFillQty ? { minFillQty } : {}) });
      const quoteIds: string[] = [];
      for (const leg of legs) {
        const usdc = usdcOf(leg.size, leg.price);
        const amounts = side === 'BUY' ? { makerPays: { token: 'ETH', amount: leg.size }, makerReceives: { token: 'USDC', amount: usdc } } : { makerPays: { token: 'USDC', amount: usdc }, makerReceives: { token: 'ETH', amount: leg.size } };
        const quote = await leg.maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-PERP', side, ...amounts, ...(leg.allOrNone === false ? { allOrNone: false } : {}), ...(await makerOrders(leg.maker.account, side, leg.size, leg.price)) });
        quoteIds.push(quote.quoteId);
      }
      return { rfqId, quoteIds };
    }

    /** size x price, exact (sizes and prices here have at most four decimals each). */
    function usdcOf(size: string, price: string): string {
      const scaled = (t: string) => BigInt((t.split('.')[0] ?? '0') + (t.split('.')[1] ?? '').padEnd(4, '0'));
      const product = scaled(size) * scaled(price); // 10^-8 units
      const whole = product / 100_000_000n;
      const fraction = (product % 100_000_000n).toString().padStart(8, '0').replace(/0+$/, '');
      return fraction ? `${whole}.${fraction}` : `${whole}`;
    }

    /** A BUY sweep of 0.2 ETH quoted 0.1 at 3500.1 and 0.1 at 3500.2 by two makers, in that order. */
    async function twoMakerBuy() {
      const a = await f.perpMaker();
      const b = await f.perpMaker();
      const taker = await f.perpTaker();
      const auction = await sweepAuction(taker, 'BUY', '0.2', [
        { maker: a, size: '0.1', price: '3500.1' },
        { maker: b, size: '0.1', price: '3500.2' },
      ]);
      return { a, b, taker, ...auction };
    }

    const legsOf = (rfq: unknown) => ((rfq as { fills?: Array<{ quoteId: string; baseQty: string; status: string }> }).fills ?? []);

    it('three makers fill one BUY: three ALOs rest, one IOC at the worst price takes them, every leg SETTLED', async () => {
      const makers = [await f.perpMaker(), await f.perpMaker(), await f.perpMaker()];
      const taker = await f.perpTaker();
      // Inside the simulator's spread around 3500: only the makers' orders are crossed.
      const { rfqId, quoteIds } = await sweepAuction(taker, 'BUY', '0.3', [
        { maker: makers[0]!, size: '0.1', price: '3500.1' },
        { maker: makers[1]!, size: '0.1', price: '3500.2' },
        { maker: makers[2]!, size: '0.1', price: '3500.3' },
      ]);
      const order = await takerOrder(taker.account, 'BUY', '0.3', '3500.3');
      const accepted = await taker.client.acceptSweep(rfqId, { quotes: quoteIds.map((quoteId) => ({ quoteId, expectedVersion: 1 })), perpTakerOrder: order } as never);
      assert.equal(accepted.status, 'PENDING', 'the 202 comes before any check');
      assert.deepEqual(accepted.quoteIds, quoteIds, 'the legs in rank order');
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.deepEqual(legsOf(rfq).map((l) => [l.quoteId, l.baseQty, l.status]), quoteIds.map((id) => [id, '0.1', 'SETTLED']));
      for (const [i, id] of quoteIds.entries()) {
        const mine = (await makers[i]!.client.makerQuotes({ status: ['SETTLED'] })).items.find((q) => q.quoteId === id) as Record<string, unknown> | undefined;
        assert.equal(mine?.['perpFilledSize'], '0.1', `leg ${i} filled 0.1`);
        assert.equal(mine?.['perpMakerFilledSize'], '0.1', `maker ${i}'s own order filled 0.1`);
        // Each maker sees only its own quote among the legs.
        const seen = (await makers[i]!.client.makerQuotes({})).items.map((q) => q.quoteId);
        assert.deepEqual(seen.filter((q) => quoteIds.includes(q)), [id]);
      }
      assert.equal(await f.ethPosition(taker.account.address), '0.3');
      const kinds = (await f.callKinds(rfqId)).map((c) => c.kind);
      assert.equal(kinds.filter((k) => k === 'makerOrder').length, 3, 'one maker order per leg');
      assert.equal(kinds.filter((k) => k === 'takerOrder').length, 1, 'one taker order');
    });

    it('a cut quote: its order rests whole, fills its cut, the rest is cancelled; selectedQty on its view', async () => {
      const a = await f.perpMaker();
      const b = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await sweepAuction(taker, 'BUY', '0.3', [
        { maker: a, size: '0.2', price: '3500.1' },
        { maker: b, size: '0.2', price: '3500.2', allOrNone: false },
      ]);
      await taker.client.acceptSweep(rfqId, { sweep: true, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.3', '3500.2') } as never);
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      const cut = (await b.client.makerQuotes({ status: ['SETTLED'] })).items.find((q) => q.quoteId === quoteIds[1]) as Record<string, unknown> | undefined;
      assert.equal(cut?.['selectedQty'], '0.1');
      assert.equal(cut?.['perpFilledSize'], '0.1');
      assert.deepEqual(cut?.['makerPays'], { token: 'ETH', amount: '0.1' }, 'its legs as cut');
      assert.equal(await f.ethPosition(taker.account.address), '0.3');
      // The cut maker's order kept 0.1 on the book until the clean-up cancelled it.
      const cancels = await waitUntil(async () => (await f.callKinds(rfqId)).filter((c) => c.kind === 'makerCancel'), (calls) => calls.some((c) => c.quoteId === quoteIds[1]), 'the cut leg cancelled');
      assert.ok(cancels.some((c) => c.quoteId === quoteIds[1]));
      const open = await f.info.openOrders({ user: b.account.address });
      assert.deepEqual(open, [], 'nothing of the cut maker stays on the book');
    });

    it('a maker order the venue refuses mid-sweep: the leg FAILED, counted, and the next backup in rank fills it', async () => {
      const a = await f.perpMaker();
      const poor = await f.perpMaker('1');
      const backup = await f.perpMaker();
      const taker = await f.perpTaker();
      // The backup ties the poor maker's price and came later: not selected, but crossed by the IOC.
      const { rfqId, quoteIds } = await sweepAuction(taker, 'BUY', '0.2', [
        { maker: a, size: '0.1', price: '3500.1' },
        { maker: poor, size: '0.1', price: '3500.2' },
        { maker: backup, size: '0.1', price: '3500.2' },
      ]);
      const accepted = await taker.client.acceptSweep(rfqId, { sweep: true, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.2', '3500.2') } as never);
      assert.deepEqual(accepted.quoteIds, quoteIds.slice(0, 2));
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.deepEqual(legsOf(rfq).map((l) => [l.quoteId, l.status]), [[quoteIds[0], 'SETTLED'], [quoteIds[1], 'FAILED'], [quoteIds[2], 'SETTLED']]);
      const failures = await f.h.node.store.db.selectFrom('maker_failures').selectAll().where('quote_id', '=', quoteIds[1]!).execute();
      assert.equal(failures.length, 1, 'the margin refusal counts against its maker');
      assert.equal(await f.ethPosition(taker.account.address), '0.2');
    });

    it('a taker order not signed over the selection is refused: every leg FAILED, the RFQ still PENDING', async () => {
      const { taker, rfqId, quoteIds } = await twoMakerBuy();
      // The best leg's price, not the worst: the IOC would not cross the second maker's order.
      await taker.client.acceptSweep(rfqId, { sweep: true, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.2', '3500.1') } as never);
      for (const id of quoteIds) await eventually(() => taker.client.getQuote(id), (q) => q.status === 'FAILED');
      assert.equal((await taker.client.getRfq(rfqId)).status, 'PENDING');
      assert.ok(!(await f.callKinds(rfqId)).some((c) => c.kind === 'makerOrder' || c.kind === 'takerOrder'), 'nothing was sent');
    });

    it('two accepts of one perp sweep at once: one executes, the other is 409; the winning accept again is its replay', async () => {
      const { taker, rfqId, quoteIds } = await twoMakerBuy();
      // Two selections: both quotes, or the second alone (its own order for its own size and price).
      const both = { quotes: quoteIds.map((quoteId) => ({ quoteId, expectedVersion: 1 })), perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.2', '3500.2') };
      const alone = { quotes: [{ quoteId: quoteIds[1]!, expectedVersion: 1 }], perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.2') };
      const outcomes = await Promise.allSettled([taker.client.acceptSweep(rfqId, both as never), taker.client.acceptSweep(rfqId, alone as never)]);
      const won = outcomes.findIndex((o) => o.status === 'fulfilled');
      assert.ok(won >= 0, JSON.stringify(outcomes));
      const lost = outcomes[1 - won]!;
      assert.equal(lost.status, 'rejected', 'one accept of the two');
      assert.equal((lost as PromiseRejectedResult).reason.status, 409);
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal(await f.ethPosition(taker.account.address), won === 0 ? '0.2' : '0.1', 'the winning selection executed');
      assert.equal((await f.callKinds(rfqId)).filter((c) => c.kind === 'takerOrder').length, 1);
      // The winning accept sent again after the end: answered with its legs, nothing sent.
      const again = await taker.client.acceptSweep(rfqId, (won === 0 ? both : alone) as never);
      assert.deepEqual(again.quoteIds, won === 0 ? quoteIds : [quoteIds[1]]);
      assert.equal((await f.callKinds(rfqId)).filter((c) => c.kind === 'takerOrder').length, 1);
    });

    it('the taker order applied and its reply lost: resolved by cloid, the leg SETTLED with its share', async () => {
      const a = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await sweepAuction(taker, 'SELL', '0.2', [{ maker: a, size: '0.2', price: '3499.9' }]);
      const order = await takerOrder(taker.account, 'SELL', '0.2', '3499.9');
      const c = (order.action['orders'] as { c: string }[])[0]!.c;
      await f.control.addFault({ match: { action: 'order', cloid: c }, effect: { type: 'timeoutAfterApply', holdMs: 300 }, count: 1 });
      await taker.client.acceptSweep(rfqId, { quotes: [{ quoteId: quoteIds[0]!, expectedVersion: 1 }], perpTakerOrder: order } as never);
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal((await taker.client.getQuote(quoteIds[0]!)).perpFilledSize, '0.2');
      assert.equal(await f.ethPosition(taker.account.address), '-0.2');
    });

    it('the settlement deadline passing while the taker order is at the venue leaves the sweep to its execution (SETTLED)', async () => {
      const { taker, rfqId, quoteIds } = await twoMakerBuy();
      const order = await takerOrder(taker.account, 'BUY', '0.2', '3500.2');
      const c = (order.action['orders'] as { c: string }[])[0]!.c;
      // The venue applies the taker's order and holds its reply while the deadline passes.
      await f.control.addFault({ match: { action: 'order', cloid: c }, effect: { type: 'timeoutAfterApply', holdMs: 4000 }, count: 1 });
      await taker.client.acceptSweep(rfqId, { quotes: quoteIds.map((quoteId) => ({ quoteId, expectedVersion: 1 })), perpTakerOrder: order } as never);
      await waitUntil(() => f.h.node.store.db.selectFrom('perp_executions').select('phase').where('rfq_id', '=', rfqId).executeTakeFirst(), (e) => e?.phase === 'takerSending', 'the taker order sent');
      clock.offsetMs = 3_600_000;
      try {
        await f.h.node.afterPass('settlement-expiry');
      } finally {
        clock.offsetMs = 0;
      }
      assert.equal((await taker.client.getRfq(rfqId)).status, 'QUOTED', 'the settlement expiry left the perp sweep alone');
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended, 20_000);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal(await f.ethPosition(taker.account.address), '0.2');
    });

    it('legs resting short of minFillQty: FAILED EXECUTION_NOT_FILLED and the taker order never sent', async () => {
      const a = await f.perpMaker();
      const poor = await f.perpMaker('1');
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await sweepAuction(taker, 'BUY', '0.2', [
        { maker: a, size: '0.1', price: '3500.1' },
        { maker: poor, size: '0.1', price: '3500.2' },
      ], '0.2');
      await taker.client.acceptSweep(rfqId, { sweep: true, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.2', '3500.2') } as never);
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'FAILED');
      assert.equal(rfq.failureCode, 'EXECUTION_NOT_FILLED');
      assert.deepEqual(legsOf(rfq).map((l) => l.status), ['FAILED', 'FAILED']);
      assert.ok(!(await f.callKinds(rfqId)).some((c) => c.kind === 'takerOrder'), 'no taker order was sent');
      // The resting maker's order was cancelled: nothing of it stays on the book.
      await waitUntil(async () => (await f.callKinds(rfqId)).filter((c) => c.kind === 'makerCancel' && c.quoteId === quoteIds[0]), (c) => c.length > 0, 'the resting leg cancelled');
      assert.deepEqual(await f.info.openOrders({ user: a.account.address }), []);
    });
  });
}
