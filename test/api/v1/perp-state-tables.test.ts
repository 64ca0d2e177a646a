/**
 * Every row of the spec's RFQ and Quote state tables ("States and transitions"), walked for a perp
 * RFQ over HTTP against the venue simulator, on both databases. Each row is reached by one of the
 * tests below, seen in the resource and in the events it pushed (the outbox, so transient states
 * such as QUOTED and SELECTED are seen too); the two autoAccept rows cannot happen on a perp (the
 * spec refuses autoAccept there) and that refusal is asserted instead. The last test fails if any
 * row of the tables was left unreached.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../../helpers/eventually.ts';
import { backends } from '../../helpers/backends.ts';
import type { Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { cloidOfOrder, ended, makerOrders, PerpFixture, takerOrder } from '../../helpers/perp.ts';

/** The spec's rows, as `table: From --trigger (condition)--> To`. */
const ROWS = [
  'RFQ: (new) --POST /v1/rfq/requests (accepted)--> PENDING',
  'RFQ: PENDING --taker accept (quote accepted, taker-driven)--> QUOTED',
  'RFQ: PENDING --auction deadline (autoAccept true and a conforming quote exists)--> QUOTED',
  'RFQ: QUOTED --settlement completes--> SETTLED',
  'RFQ: QUOTED --settlement does not complete (winning maker did not deliver by the deadline, or settlement failed)--> FAILED',
  'RFQ: PENDING --auction deadline (autoAccept true and no fillable quote)--> FAILED',
  'RFQ: PENDING --auction deadline (taker-driven RFQ with no acceptance)--> CANCELLED',
  'RFQ: PENDING --taker cancels (before auctionEndsAt)--> CANCELLED',
  'RFQ: PENDING --perp accept refused after the 202 (order fails checks)--> PENDING',
  'RFQ: QUOTED --perp execution (not filled)--> FAILED EXECUTION_NOT_FILLED',
  'RFQ: QUOTED --perp execution (venue approval below rate)--> FAILED SETTLEMENT_FAILED',
  'RFQ: QUOTED --perp execution (outcome unknown)--> FAILED EXECUTION_UNCONFIRMED',
  'Quote: (new) --maker submits quote (accepted, 202)--> SUBMITTED',
  'Quote: SUBMITTED --selection (accept or deadline) (chosen)--> SELECTED',
  'Quote: SUBMITTED --selection (not chosen)--> NOT_SELECTED',
  'Quote: SUBMITTED --window closes (no winner)--> EXPIRED',
  'Quote: SELECTED --settlement (success)--> SETTLED',
  'Quote: SELECTED --settlement (does not complete)--> FAILED',
  'Quote: SUBMITTED --maker cancel (before selection)--> CANCELLED',
  'Quote: SUBMITTED --perp accept refused--> FAILED',
] as const;
type Row = (typeof ROWS)[number];

for (const backend of backends()) {
  describe(`perp rows of the spec's state tables [${backend}]`, () => {
    let f: PerpFixture;
    let h: Harness;
    const reached = new Set<Row>();
    const reach = (...rows: Row[]) => rows.forEach((row) => reached.add(row));

    before(async () => {
      f = await PerpFixture.start(backend);
      h = f.h;
    });
    after(async () => f?.close());

    /** The statuses pushed for an RFQ (`rfqStatus`) or a quote (`quoteStatus` to its maker), in commit order. */
    async function pushed(topic: 'rfqStatus' | 'quoteStatus', id: string): Promise<string[]> {
      const rows = await h.node.store.db.selectFrom('outbox').select('frame').where('topic', '=', topic).orderBy('id').execute();
      const frames = rows.map((r) => r.frame as unknown as { id?: string; quoteId?: string; status: string });
      return frames.filter((frame) => (topic === 'rfqStatus' ? frame.id : frame.quoteId) === id).map((frame) => frame.status);
    }

    it('settled with a cascade: RFQ PENDING -> QUOTED -> SETTLED; quotes SUBMITTED (re-quoted), SELECTED -> SETTLED, NOT_SELECTED', async () => {
      const winner = await f.perpMaker();
      const backup = await f.perpMaker();
      const worse = await f.perpMaker();
      const taker = await f.perpTaker();
      // BUY at 3500.1: the backup (3499.9) is crossed by the taker's IOC too; the worse one (3500.2) is not.
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker: winner, usdc: '350.01' }, { maker: backup, usdc: '349.99' }, { maker: worse, usdc: '350.02' }]);
      const [won, backedUp, lost] = quoteIds as [string, string, string];
      assert.equal((await taker.client.getRfq(rfqId)).status, 'PENDING');
      assert.equal((await taker.client.getQuote(won)).status, 'SUBMITTED');
      // A re-submission keeps the quoteId and advances the version (a perp re-quote signs a new pair).
      const requote = await worse.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-PERP', side: 'BUY', makerPays: { token: 'ETH', amount: '0.1' }, makerReceives: { token: 'USDC', amount: '350.02' }, ...(await makerOrders(worse.account, 'BUY', '0.1', '3500.2')) });
      assert.equal(requote.quoteId, lost);
      assert.equal(requote.status, 'SUBMITTED');
      assert.equal((await taker.client.getQuote(lost)).version, 2);
      reach('RFQ: (new) --POST /v1/rfq/requests (accepted)--> PENDING', 'Quote: (new) --maker submits quote (accepted, 202)--> SUBMITTED');

      await taker.client.accept(rfqId, { quoteId: won, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal(rfq.txHash, undefined, 'a perp RFQ carries no txHash');
      assert.equal(rfq.executedPayAmount, undefined, 'nor a fill');
      assert.deepEqual(await pushed('rfqStatus', rfqId), ['PENDING', 'QUOTED', 'SETTLED']);
      reach('RFQ: PENDING --taker accept (quote accepted, taker-driven)--> QUOTED', 'RFQ: QUOTED --settlement completes--> SETTLED');

      const settled = await taker.client.getQuote(won);
      assert.equal(settled.status, 'SETTLED');
      assert.equal(settled.perpFilledSize, '0.1');
      assert.equal(settled.perpFillAvgPx, '3500.1');
      const makerView = (await winner.client.makerQuotes({ status: ['SETTLED'] })).items.find((q) => q.quoteId === won);
      assert.ok(typeof makerView?.settledAt === 'number', 'settledAt on the maker\'s view');
      assert.equal(makerView.txHash, undefined, 'no txHash on a perp');
      assert.equal(makerView.perpFilledSize, '0.1');
      assert.deepEqual(await pushed('quoteStatus', won), ['SUBMITTED', 'SELECTED', 'SETTLED']);
      reach('Quote: SUBMITTED --selection (accept or deadline) (chosen)--> SELECTED', 'Quote: SELECTED --settlement (success)--> SETTLED');

      // Not crossed by the taker's order: NOT_SELECTED at selection; the backup waited (with a position) and was released.
      assert.equal((await taker.client.getQuote(lost)).status, 'NOT_SELECTED');
      assert.deepEqual(await pushed('quoteStatus', lost), ['SUBMITTED', 'SUBMITTED', 'NOT_SELECTED']);
      assert.equal((await taker.client.getQuote(backedUp)).status, 'NOT_SELECTED');
      assert.deepEqual(await pushed('quoteStatus', backedUp), ['SUBMITTED', 'SUBMITTED', 'NOT_SELECTED'], 'SUBMITTED with position 1, then released');
      reach('Quote: SUBMITTED --selection (not chosen)--> NOT_SELECTED');
    });

    it('the taker cancels: RFQ PENDING -> CANCELLED with a reason; the maker cancels: quote SUBMITTED -> CANCELLED', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const withdrawn = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const cancelledQuote = await maker.client.cancelQuote(withdrawn.quoteIds[0]!);
      assert.equal(cancelledQuote.status, 'CANCELLED');
      assert.deepEqual(await pushed('quoteStatus', withdrawn.quoteIds[0]!), ['SUBMITTED', 'CANCELLED']);
      const told = await h.node.store.db.selectFrom('outbox').select('frame').where('topic', '=', 'quotes').execute();
      assert.ok(told.some((r) => (r.frame as unknown as { quoteId: string; status: string }).quoteId === withdrawn.quoteIds[0] && (r.frame as unknown as { status: string }).status === 'CANCELLED'), 'the RFQ owner is told on quotes');
      reach('Quote: SUBMITTED --maker cancel (before selection)--> CANCELLED');

      const cancelled = await taker.client.cancelRfq(withdrawn.rfqId);
      assert.equal(cancelled.status, 'CANCELLED');
      assert.ok(cancelled.failureReason, 'failureReason present');
      assert.deepEqual(await pushed('rfqStatus', withdrawn.rfqId), ['PENDING', 'CANCELLED']);
      reach('RFQ: PENDING --taker cancels (before auctionEndsAt)--> CANCELLED');
    });

    it('the auction closes with no accept: RFQ PENDING -> CANCELLED, the quote SUBMITTED -> EXPIRED', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }], 1_000);
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended, 10_000);
      assert.equal(rfq.status, 'CANCELLED');
      assert.equal((await taker.client.getQuote(quoteIds[0]!)).status, 'EXPIRED');
      assert.deepEqual(await pushed('quoteStatus', quoteIds[0]!), ['SUBMITTED', 'EXPIRED']);
      assert.deepEqual((await f.callKinds(rfqId)), [], 'nothing went to the venue');
      reach('RFQ: PENDING --auction deadline (taker-driven RFQ with no acceptance)--> CANCELLED', 'Quote: SUBMITTED --window closes (no winner)--> EXPIRED');
    });

    it('autoAccept cannot be asked for on a perp (PERP_AUTO_ACCEPT_UNSUPPORTED): its two deadline rows never happen', async () => {
      const taker = await f.perpTaker();
      await rejects(taker.client.createRfq({ instrumentId: 'ETH-USDC-PERP', side: 'BUY', baseQty: '0.1', quoteLimit: '400', autoAccept: true }), 400, 'PERP_AUTO_ACCEPT_UNSUPPORTED');
      assert.equal((await taker.client.listRfqs()).items.length, 0, 'nothing was created');
      reach('RFQ: PENDING --auction deadline (autoAccept true and a conforming quote exists)--> QUOTED', 'RFQ: PENDING --auction deadline (autoAccept true and no fillable quote)--> FAILED');
    });

    it('an accept refused after the 202: RFQ PENDING -> PENDING, the quote SUBMITTED -> FAILED', async () => {
      const maker = await f.perpMaker();
      const taker = await f.perpTaker();
      const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      // Rule 9 broken: a GTC instead of an IOC.
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1', { order: { t: { limit: { tif: 'Gtc' } } } }) });
      const quote = await eventually(() => taker.client.getQuote(quoteIds[0]!), (q) => q.status !== 'SUBMITTED');
      assert.equal(quote.status, 'FAILED');
      assert.equal((await taker.client.getRfq(rfqId)).status, 'PENDING');
      assert.deepEqual(await pushed('rfqStatus', rfqId), ['PENDING'], 'the RFQ never left PENDING');
      assert.deepEqual(await pushed('quoteStatus', quoteIds[0]!), ['SUBMITTED', 'FAILED']);
      reach('RFQ: PENDING --perp accept refused after the 202 (order fails checks)--> PENDING', 'Quote: SUBMITTED --perp accept refused--> FAILED');
    });

    it('perp execution fails: RFQ QUOTED -> FAILED with each code, the winner SELECTED -> FAILED', async () => {
      const maker = await f.perpMaker();
      const cases: { code: string; row: Row; approveFee: string; setup: (c: string) => Promise<void> }[] = [
        {
          code: 'EXECUTION_NOT_FILLED',
          row: 'RFQ: QUOTED --perp execution (not filled)--> FAILED EXECUTION_NOT_FILLED',
          approveFee: '0.02%',
          setup: async (c) => void (await f.control.addFault({ match: { action: 'order', cloid: c }, effect: { type: 'reject', message: 'Order could not immediately match against any resting orders.' }, count: 1 })),
        },
        { code: 'SETTLEMENT_FAILED', row: 'RFQ: QUOTED --perp execution (venue approval below rate)--> FAILED SETTLEMENT_FAILED', approveFee: '0.01%', setup: async () => undefined },
        {
          code: 'EXECUTION_UNCONFIRMED',
          row: 'RFQ: QUOTED --perp execution (outcome unknown)--> FAILED EXECUTION_UNCONFIRMED',
          approveFee: '0.02%',
          setup: async (c) => {
            await f.control.addFault({ match: { action: 'order', cloid: c }, effect: { type: 'timeoutBeforeApply', holdMs: 100 }, count: 1 });
            await f.control.addFault({ match: { infoType: 'orderStatus', cloid: c }, effect: { type: 'unknownOid' }, count: null });
          },
        },
      ];
      for (const { code, row, approveFee, setup } of cases) {
        const taker = await f.perpTaker(approveFee);
        const { rfqId, quoteIds } = await f.auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
        const order = await takerOrder(taker.account, 'BUY', '0.1', '3500.1');
        await setup(cloidOfOrder(order));
        await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: order });
        const rfq = await eventually(() => taker.client.getRfq(rfqId), ended, 10_000);
        assert.equal(rfq.status, 'FAILED', `${code}: ${JSON.stringify(rfq)}`);
        assert.equal(rfq.failureCode, code);
        assert.deepEqual(await pushed('rfqStatus', rfqId), ['PENDING', 'QUOTED', 'FAILED'], code);
        assert.equal((await taker.client.getQuote(quoteIds[0]!)).status, 'FAILED', code);
        assert.deepEqual(await pushed('quoteStatus', quoteIds[0]!), ['SUBMITTED', 'SELECTED', 'FAILED'], code);
        reach(row);
      }
      reach('RFQ: QUOTED --settlement does not complete (winning maker did not deliver by the deadline, or settlement failed)--> FAILED', 'Quote: SELECTED --settlement (does not complete)--> FAILED');
    });

    it('every row of both tables was reached (or, for autoAccept, shown impossible on a perp)', () => {
      assert.deepEqual(ROWS.filter((row) => !reached.has(row)), []);
    });
  });
}
