/**
 * Perp execution end to end (DESIGN.md 9.3) over HTTP against the venue simulator, on both
 * databases: the accept answers 202, the executor checks, selects with a cascade, places the
 * maker's ALO, sends the taker's IOC once and reports the fill; refusals leave the RFQ PENDING;
 * a reused nonce does nothing; builder-fee, IOC, fault and resolution outcomes end with their codes.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { signL1Action } from '@nktkas/hyperliquid/signing';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { resolveProfile, startVenueSim, type VenueSim } from '../../../sim/venue/index.ts';
import { VenueSimControl } from '../../../sim/venue/control.ts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { eventually, waitUntil } from '../../helpers/eventually.ts';
import { backends, createTestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { TEST_VENUE_PROFILE } from '../../helpers/venue-profile.ts';
import { BUILDER, cloid, ended, ETH, freshNonce, makerOrders, PerpFixture, sign, takerOrder, type Signed } from '../../helpers/perp.ts';

const RESOLVE_WINDOW_MS = 1500;

for (const backend of backends()) {
  describe(`perp execution [${backend}]`, () => {
    let sim: VenueSim;
    let control: VenueSimControl;
    let h: Harness;
    let f: PerpFixture;
    /** The service's clock, which one case sets ahead of the venue's. */
    const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };
    const perpMaker = (usdc?: string) => f.perpMaker(usdc);
    const perpTaker = (approveFee?: string | null) => f.perpTaker(approveFee);
    const auction: PerpFixture['auction'] = (...args) => f.auction(...args);
    /** An auction won by `maker` and the taker's order for it, whose reply the venue loses after applying it. */
    const replyLostAfterApply = async (maker: Awaited<ReturnType<typeof perpMaker>>, taker: Awaited<ReturnType<typeof perpTaker>>) => {
      const lost = await auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const order = await takerOrder(taker.account, 'BUY', '0.1', '3500.1');
      const c = (order.action['orders'] as { c: string }[])[0]!.c;
      await control.addFault({ match: { action: 'order', cloid: c }, effect: { type: 'timeoutAfterApply', holdMs: 100 }, count: 1 });
      return { lost, order };
    };

    before(async () => {
      // On the realistic profile all but its weight limit: these cases run executions back to
      // back, faster than the venue's 1,200 a minute allows (the budget is perp-quote-weight's and
      // venue-budget's subject), so the node's budget does not bind here either.
      sim = await startVenueSim({ port: 0, profile: TEST_VENUE_PROFILE === 'realistic' ? resolveProfile('realistic', { weightPerMin: null }) : 'fast' });
      control = new VenueSimControl(sim.url);
      // As PerpFixture.start: the builder funded to the venue's minimum, ETH held still on a moving book.
      await control.fund({ user: BUILDER, account: 'perp', token: 'USDC', amount: '100' });
      if (sim.profile.movingBook) await control.book({ coin: 'ETH', moving: false });
      h = await startHarness(backend, {
        clock,
        venueWeightPerMin: 1_000_000,
        venue: { url: sim.url, network: 'mainnet', builderAddress: BUILDER },
        perpExecution: { resolveWindowMs: RESOLVE_WINDOW_MS, resolvePollMs: 100, makerLookupMs: 500 },
      });
      await h.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
      f = new PerpFixture(h, sim);
    });
    after(async () => {
      await h?.close();
      await sim?.stop();
    });

    it('BUY: 202, QUOTED, maker ALO rests, taker IOC fills against it, SETTLED with the fill on both views', async () => {
      const maker = await perpMaker();
      const taker = await perpTaker();
      // Inside the simulator's spread (mid 3500, half spread 1 bp): only the maker's order is crossed.
      const { rfqId, quoteIds } = await auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const accepted = await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, expectedVersion: 1, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      assert.equal(accepted.status, 'PENDING', 'the 202 comes before any check');
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal((rfq as unknown as Record<string, unknown>)['selectedQuoteId'], quoteIds[0]);
      assert.equal((rfq as unknown as Record<string, unknown>)['txHash'], undefined);
      const quote = (await taker.client.getQuote(quoteIds[0]!)) as unknown as Record<string, unknown>;
      assert.equal(quote['status'], 'SETTLED');
      assert.equal(quote['perpFilledSize'], '0.1');
      assert.equal(quote['perpFillAvgPx'], '3500.1');
      const mine = (await maker.client.makerQuotes({ status: ['SETTLED'] })).items.find((q) => q.quoteId === quoteIds[0]) as Record<string, unknown> | undefined;
      assert.equal(mine?.['perpMakerFilledSize'], '0.1');
      assert.equal(mine?.['perpFilledSize'], '0.1');
      // The look-up after the IOC found the maker's order filled: nothing left to cancel.
      const cleanup = await waitUntil(async () => (await f.callKinds(rfqId)).filter((c) => c.kind === 'makerCancel' || c.kind === 'makerCancelNotNeeded'), (calls) => calls.length > 0, 'the clean-up');
      assert.deepEqual(cleanup, [{ kind: 'makerCancelNotNeeded', quoteId: quoteIds[0] }]);
    });

    it('SELL: a maker refused for margin is counted and the backup executes (cascade)', async () => {
      const poor = await perpMaker('1');
      const good = await perpMaker();
      const taker = await perpTaker();
      // The taker accepts the lower bid; the higher one is crossed by its IOC too, so it is the backup.
      const { rfqId, quoteIds } = await auction(taker, 'SELL', [{ maker: poor, usdc: '349.98' }, { maker: good, usdc: '349.99' }]);
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'SELL', '0.1', '3499.8') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
      assert.equal((rfq as unknown as Record<string, unknown>)['selectedQuoteId'], quoteIds[1], 'the backup executed');
      assert.equal((await taker.client.getQuote(quoteIds[0]!)).status, 'FAILED');
      const failures = await h.node.store.db.selectFrom('maker_failures').selectAll().where('quote_id', '=', quoteIds[0]!).execute();
      assert.equal(failures.length, 1, 'the margin refusal counts against the maker');
      // The operator sees the execution, its cascade and its audit trail (GET /admin/v1/perp/executions).
      // The clean-up (the makers' cancels) may still be under way when the RFQ has ended.
      const page = await eventually(
        () => h.admin.call<{ items: Array<Record<string, unknown> & { calls: Array<{ kind: string; quoteId: string | null }> }> }>('GET', '/perp/executions', undefined, { rfqId }),
        (p) => p.items[0]?.['phase'] === 'done',
      );
      assert.equal(page.items.length, 1);
      const execution = page.items[0]!;
      assert.equal(execution['phase'], 'done');
      assert.equal(execution['open'], false);
      assert.equal(execution['rfqStatus'], 'SETTLED');
      assert.equal(execution['quoteId'], quoteIds[0], 'the accepted quote');
      assert.equal(execution['currentQuoteId'], quoteIds[1], 'the backup that executed');
      assert.equal(execution['takerAddress'], taker.account.address);
      assert.ok(execution.calls.some((c) => c.kind === 'makerOrderSending' && c.quoteId === quoteIds[0]), 'the refused maker order is in the trail');
      assert.ok(execution.calls.some((c) => c.kind === 'decision'));
      assert.deepEqual(await h.admin.call('GET', `/perp/executions/${execution['executionId'] as string}`), execution);
      const done = await h.admin.call<{ items: Array<{ phase: string; executionId: string }> }>('GET', '/perp/executions', undefined, { phase: 'done' });
      assert.ok(done.items.some((e) => e.executionId === execution['executionId']) && done.items.every((e) => e.phase === 'done'), 'filtered by phase');
    });

    it('the cascade exhausted ends EXECUTION_NOT_FILLED and the taker order is never sent', async () => {
      const poor = await perpMaker('1');
      const taker = await perpTaker();
      const { rfqId, quoteIds } = await auction(taker, 'BUY', [{ maker: poor, usdc: '350.01' }]);
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'FAILED');
      assert.equal(rfq.failureCode, 'EXECUTION_NOT_FILLED');
      const calls = await h.node.store.db.selectFrom('perp_execution_calls').select('kind').innerJoin('perp_executions', 'perp_executions.id', 'perp_execution_calls.execution_id').where('perp_executions.rfq_id', '=', rfqId).execute();
      assert.ok(!calls.some((c) => c.kind === 'takerOrder'), 'no taker order was sent');
    });

    it('a broken rule is a refusal: the quote FAILED, the RFQ still PENDING, another quote acceptable', async () => {
      const a = await perpMaker();
      const b = await perpMaker();
      const taker = await perpTaker();
      const { rfqId, quoteIds } = await auction(taker, 'BUY', [{ maker: a, usdc: '350.01' }, { maker: b, usdc: '350.02' }]);
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1', { order: { a: 0 } }) });
      const refused = await eventually(() => taker.client.getQuote(quoteIds[0]!), (q) => q.status !== 'SUBMITTED');
      assert.equal(refused.status, 'FAILED');
      assert.equal((await taker.client.getRfq(rfqId)).status, 'PENDING');
      await taker.client.accept(rfqId, { quoteId: quoteIds[1]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.2') });
      const rfq = await eventually(() => taker.client.getRfq(rfqId), ended);
      assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
    });

    it('each of spec rules 1-14 broken once is a refusal: the quote FAILED, the RFQ still PENDING', async () => {
      const maker = await perpMaker();
      const taker = await perpTaker();
      const stranger = privateKeyToAccount(generatePrivateKey());
      const order = (o: Record<string, unknown> = {}) => ({ a: ETH, b: true, p: '3500.1', s: '0.1', r: false, t: { limit: { tif: 'Ioc' } }, c: cloid(), ...o });
      const builder = { b: BUILDER, f: 20 };
      const broken: Array<[string, () => Promise<Signed | Record<string, unknown>>]> = [
        ['1: action keys out of order', () => sign(taker.account, { orders: [order()], type: 'order', grouping: 'na', builder })],
        ['1: order keys out of order', async () => { const { a, b, ...rest } = order(); return sign(taker.account, { type: 'order', orders: [{ b, a, ...rest }], grouping: 'na', builder }); }],
        ['2: two orders', () => sign(taker.account, { type: 'order', orders: [order(), order()], grouping: 'na', builder })],
        ['2: grouping not na', () => takerOrder(taker.account, 'BUY', '0.1', '3500.1', { action: { grouping: 'normalTpsl' } })],
        ['3: vaultAddress', async () => ({ ...(await takerOrder(taker.account, 'BUY', '0.1', '3500.1')), vaultAddress: stranger.address.toLowerCase() })],
        ['3: expiresAfter', async () => ({ ...(await takerOrder(taker.account, 'BUY', '0.1', '3500.1')), expiresAfter: Date.now() + 60_000 })],
        ['4: a of another coin', () => takerOrder(taker.account, 'BUY', '0.1', '3500.1', { order: { a: 0 } })],
        ['5: b of the other side', () => takerOrder(taker.account, 'BUY', '0.1', '3500.1', { order: { b: false } })],
        ['6: s not the base leg', () => takerOrder(taker.account, 'BUY', '0.2', '3500.1')],
        ['7: p not the quote leg over s', () => takerOrder(taker.account, 'BUY', '0.1', '3500.2')],
        ['8: p with a trailing zero', () => takerOrder(taker.account, 'BUY', '0.1', '3500.10')],
        ['9: tif not Ioc', () => takerOrder(taker.account, 'BUY', '0.1', '3500.1', { order: { t: { limit: { tif: 'Gtc' } } } })],
        ['10: c not 16 bytes of hex', () => takerOrder(taker.account, 'BUY', '0.1', '3500.1', { order: { c: '0x1234' } })],
        ['11: no builder on a quote with a rate', () => takerOrder(taker.account, 'BUY', '0.1', '3500.1', { builderFee: null })],
        ['11: builder rate not the quote\'s', () => takerOrder(taker.account, 'BUY', '0.1', '3500.1', { builderFee: 10 })],
        ['11: builder address not the service\'s', () => takerOrder(taker.account, 'BUY', '0.1', '3500.1', { action: { builder: { b: stranger.address.toLowerCase(), f: 20 } } })],
        ['12: nonce outside the venue window', () => takerOrder(taker.account, 'BUY', '0.1', '3500.1', { nonce: Date.now() - 3 * 24 * 3600_000 })],
        ['13: signature over another nonce', async () => ({ ...(await takerOrder(taker.account, 'BUY', '0.1', '3500.1')), nonce: freshNonce() })],
        ['14: signed for the other network', async () => { const action = (await takerOrder(taker.account, 'BUY', '0.1', '3500.1')).action; const nonce = freshNonce(); return { action, nonce, signature: await signL1Action({ wallet: taker.account, action, nonce, isTestnet: true }) }; }],
        ['14: signed by a key the account never approved', () => takerOrder(stranger, 'BUY', '0.1', '3500.1')],
      ];
      for (const [rule, build] of broken) {
        const { rfqId, quoteIds } = await auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
        await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: (await build()) as Signed });
        const quote = await eventually(() => taker.client.getQuote(quoteIds[0]!), (q) => q.status !== 'SUBMITTED');
        assert.equal(quote.status, 'FAILED', `rule ${rule}: the quote is FAILED`);
        assert.equal((await taker.client.getRfq(rfqId)).status, 'PENDING', `rule ${rule}: the RFQ is still PENDING`);
        const sent = await h.node.store.db.selectFrom('perp_execution_calls').select('kind').innerJoin('perp_executions', 'perp_executions.id', 'perp_execution_calls.execution_id').where('perp_executions.rfq_id', '=', rfqId).where('kind', 'in', ['makerOrder', 'takerOrder']).execute();
        assert.deepEqual(sent, [], `rule ${rule}: nothing sent to the venue`);
      }
    });

    it('a reused nonce does nothing at all: the quote stays live, the RFQ PENDING', async () => {
      const maker = await perpMaker();
      const taker = await perpTaker();
      const { rfqId, quoteIds } = await auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const nonce = freshNonce();
      // The first use claims the pair.
      const first = await auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      await taker.client.accept(first.rfqId, { quoteId: first.quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1', { nonce }) });
      assert.equal((await eventually(() => taker.client.getRfq(first.rfqId), ended)).status, 'SETTLED');
      await taker.client.accept(rfqId, { quoteId: quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1', { nonce }) });
      const execution = await eventually(
        () => h.node.store.db.selectFrom('perp_executions').select('phase').where('rfq_id', '=', rfqId).executeTakeFirstOrThrow(),
        (e) => e.phase !== 'checking',
      );
      assert.equal(execution.phase, 'ignored');
      assert.equal((await taker.client.getQuote(quoteIds[0]!)).status, 'SUBMITTED');
      assert.equal((await taker.client.getRfq(rfqId)).status, 'PENDING');
      const failures = await h.node.store.db.selectFrom('maker_failures').selectAll().where('rfq_id', '=', rfqId).execute();
      assert.equal(failures.length, 0);
    });

    it('builder fee: unreadable is a refusal; approved below the rate ends SETTLEMENT_FAILED', async () => {
      const maker = await perpMaker();
      const low = await perpTaker('0.01%');
      const below = await auction(low, 'BUY', [{ maker, usdc: '350.01' }]);
      await low.client.accept(below.rfqId, { quoteId: below.quoteIds[0]!, perpTakerOrder: await takerOrder(low.account, 'BUY', '0.1', '3500.1') });
      const failed = await eventually(() => low.client.getRfq(below.rfqId), ended);
      assert.equal(failed.status, 'FAILED');
      assert.equal(failed.failureCode, 'SETTLEMENT_FAILED');

      const taker = await perpTaker();
      const down = await auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      await control.addFault({ match: { infoType: 'maxBuilderFee' }, effect: { type: 'http', status: 502 }, count: 1 });
      await taker.client.accept(down.rfqId, { quoteId: down.quoteIds[0]!, perpTakerOrder: await takerOrder(taker.account, 'BUY', '0.1', '3500.1') });
      const refused = await eventually(() => taker.client.getQuote(down.quoteIds[0]!), (q) => q.status !== 'SUBMITTED');
      assert.equal(refused.status, 'FAILED');
      assert.equal((await taker.client.getRfq(down.rfqId)).status, 'PENDING');
    });

    it('IOC refused by the venue ends EXECUTION_NOT_FILLED; a partial fill settles for its size', async () => {
      const maker = await perpMaker();
      const taker = await perpTaker();
      const refused = await auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const order = await takerOrder(taker.account, 'BUY', '0.1', '3500.1');
      await control.addFault({ match: { action: 'order', cloid: (order.action['orders'] as { c: string }[])[0]!.c }, effect: { type: 'reject', message: 'Order could not immediately match against any resting orders.' }, count: 1 });
      await taker.client.accept(refused.rfqId, { quoteId: refused.quoteIds[0]!, perpTakerOrder: order });
      const notFilled = await eventually(() => taker.client.getRfq(refused.rfqId), ended);
      assert.equal(notFilled.failureCode, 'EXECUTION_NOT_FILLED');

      const partial = await auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const half = await takerOrder(taker.account, 'BUY', '0.1', '3500.1');
      await control.addFault({ match: { action: 'order', cloid: (half.action['orders'] as { c: string }[])[0]!.c }, effect: { type: 'partialFill', fraction: '0.5' }, count: 1 });
      await taker.client.accept(partial.rfqId, { quoteId: partial.quoteIds[0]!, perpTakerOrder: half });
      const settled = await eventually(() => taker.client.getRfq(partial.rfqId), ended);
      assert.equal(settled.status, 'SETTLED', JSON.stringify(settled));
      assert.equal((await taker.client.getQuote(partial.quoteIds[0]!) as unknown as Record<string, unknown>)['perpFilledSize'], '0.05');
      // Half of the maker's order is still on the book: it gets its cancel.
      const cleanup = await waitUntil(async () => (await f.callKinds(partial.rfqId)).filter((c) => c.kind === 'makerCancel' || c.kind === 'makerCancelNotNeeded'), (calls) => calls.length > 0, 'the clean-up');
      assert.deepEqual(cleanup, [{ kind: 'makerCancel', quoteId: partial.quoteIds[0] }]);
    });

    it('timeoutAfterApply on the taker order resolves SETTLED by cloid; unknownOid past the window ends EXECUTION_UNCONFIRMED', async () => {
      const maker = await perpMaker();
      const taker = await perpTaker();
      const { lost, order } = await replyLostAfterApply(maker, taker);
      await taker.client.accept(lost.rfqId, { quoteId: lost.quoteIds[0]!, perpTakerOrder: order });
      const settled = await eventually(() => taker.client.getRfq(lost.rfqId), ended);
      assert.equal(settled.status, 'SETTLED', JSON.stringify(settled));
      assert.equal((await taker.client.getQuote(lost.quoteIds[0]!) as unknown as Record<string, unknown>)['perpFilledSize'], '0.1');

      const unknown = await auction(taker, 'BUY', [{ maker, usdc: '350.01' }]);
      const order2 = await takerOrder(taker.account, 'BUY', '0.1', '3500.1');
      const c2 = (order2.action['orders'] as { c: string }[])[0]!.c;
      await control.addFault({ match: { action: 'order', cloid: c2 }, effect: { type: 'timeoutBeforeApply', holdMs: 100 }, count: 1 });
      await control.addFault({ match: { infoType: 'orderStatus', cloid: c2 }, effect: { type: 'unknownOid' }, count: null });
      await taker.client.accept(unknown.rfqId, { quoteId: unknown.quoteIds[0]!, perpTakerOrder: order2 });
      const unconfirmed = await eventually(() => taker.client.getRfq(unknown.rfqId), ended, 10_000);
      assert.equal(unconfirmed.status, 'FAILED');
      assert.equal(unconfirmed.failureCode, 'EXECUTION_UNCONFIRMED');
      const sends = await h.node.store.db.selectFrom('perp_execution_calls').select('kind').innerJoin('perp_executions', 'perp_executions.id', 'perp_execution_calls.execution_id').where('perp_executions.rfq_id', '=', unknown.rfqId).where('kind', '=', 'takerOrder').execute();
      assert.equal(sends.length, 1, 'sent once, never again');
    });

    it('resolves a filled order whose reply was lost with our clock 20 s ahead of the venue: SETTLED with its fill (simulation seed 9608)', async () => {
      const maker = await perpMaker();
      const taker = await perpTaker();
      const { lost, order } = await replyLostAfterApply(maker, taker);
      // Within the 30 s request skew the service accepts; the venue stamps the fill by its own clock.
      clock.offsetMs = 20_000;
      try {
        await taker.client.accept(lost.rfqId, { quoteId: lost.quoteIds[0]!, perpTakerOrder: order });
        const rfq = await eventually(() => taker.client.getRfq(lost.rfqId), ended, 10_000);
        assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
        assert.equal((await taker.client.getQuote(lost.quoteIds[0]!) as unknown as Record<string, unknown>)['perpFilledSize'], '0.1');
      } finally {
        clock.offsetMs = 0;
      }
    });
  });
}

// Two nodes on one PostgreSQL database (PGlite cannot be shared): both run the executor; every
// execution is driven to its end exactly once, and each taker order is sent exactly once.
if (process.env.TEST_DATABASE_URL) {
  describe('perp execution across two nodes [postgres]', () => {
    it('runs each accepted order exactly once', async () => {
      const sim = await startVenueSim({ port: 0 });
      const control = new VenueSimControl(sim.url);
      const database = await createTestDatabase('postgres');
      const venue = { url: sim.url, network: 'mainnet' as const, builderAddress: BUILDER as `0x${string}` };
      const a = await startHarness('postgres', { database, venue });
      const b = await startHarness('postgres', { database, venue, seed: false });
      try {
        await a.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 0, minQuoteNotional: '10' });
        await b.node.context.service.refdata.reload();
        const user = async () => {
          const account = privateKeyToAccount(generatePrivateKey());
          await control.fund({ user: account.address, account: 'perp', token: 'USDC', amount: '100000' });
          return account;
        };
        const makerAccount = await user();
        await a.admin.putMaker(makerAccount.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['perp'] });
        const maker = new RfqClient(b.url);
        await maker.signIn(makerAccount);
        const takerAccount = await user();
        const takers = [new RfqClient(a.url), new RfqClient(b.url)];
        for (const t of takers) await t.signIn(takerAccount);
        const rfqIds: string[] = [];
        for (let i = 0; i < 6; i++) {
          const taker = takers[i % 2]!;
          const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-PERP', side: 'BUY', baseQty: '0.1', quoteLimit: '400', windowMs: 60_000 });
          const quote = await maker.submitQuote({ rfqId, instrumentId: 'ETH-USDC-PERP', side: 'BUY', makerPays: { token: 'ETH', amount: '0.1' }, makerReceives: { token: 'USDC', amount: '350.01' }, ...(await makerOrders(makerAccount, 'BUY', '0.1', '3500.1')) });
          await taker.accept(rfqId, { quoteId: quote.quoteId, perpTakerOrder: await takerOrder(takerAccount, 'BUY', '0.1', '3500.1', { builderFee: null }) });
          rfqIds.push(rfqId);
        }
        for (const rfqId of rfqIds) {
          const rfq = await eventually(() => takers[0]!.getRfq(rfqId), (r) => r.status !== 'PENDING' && r.status !== 'QUOTED');
          assert.equal(rfq.status, 'SETTLED', JSON.stringify(rfq));
        }
        const sends = await a.node.store.db
          .selectFrom('perp_execution_calls')
          .innerJoin('perp_executions', 'perp_executions.id', 'perp_execution_calls.execution_id')
          .select(['perp_executions.rfq_id', 'perp_execution_calls.kind'])
          .where('perp_execution_calls.kind', 'in', ['takerOrder', 'makerOrder'])
          .execute();
        for (const rfqId of rfqIds) {
          assert.equal(sends.filter((s) => s.rfq_id === rfqId && s.kind === 'takerOrder').length, 1, `taker order of ${rfqId} sent once`);
          assert.equal(sends.filter((s) => s.rfq_id === rfqId && s.kind === 'makerOrder').length, 1, `maker order of ${rfqId} sent once`);
        }
        const rfqFrames = await a.node.store.db.selectFrom('outbox').select('frame').where('topic', '=', 'rfqStatus').orderBy('seq').execute();
        for (const rfqId of rfqIds) {
          const statuses = rfqFrames.map((r) => r.frame as unknown as { id: string; status: string }).filter((f) => f.id === rfqId).map((f) => f.status);
          assert.deepEqual(statuses, ['PENDING', 'QUOTED', 'SETTLED'], `one rfqStatus per transition for ${rfqId}`);
        }
      } finally {
        await b.close();
        await a.close();
        await database.drop();
        await sim.stop();
      }
    });
  });
}
