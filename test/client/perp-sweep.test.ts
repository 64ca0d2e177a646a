/**
 * The taker's perp sweep in the client library, without the service: the selection over the
 * quotes it sees (three taken, the last cut, an all-or-none one passed over) and the IOC's terms,
 * which must be the domain's `perpSweepTakerTerms` of that selection; then `PerpTaker.acceptSweep`
 * against the venue simulator (meta, builder-fee approval) and a loopback server standing in for
 * the service, which records the accept: the quotes named in rank order at their versions, and one
 * signed IOC laid out exactly as a single quote's.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startVenueSim, type VenueSim } from '../../sim/venue/index.ts';
import { VenueSimControl } from '../../sim/venue/control.ts';
import { takerOrderAction } from '../../src/client/perp-order.ts';
import { planPerpSweep, SweepShortOfMinimum, type PerpSweepRfq } from '../../src/client/perp-sweep.ts';
import { PerpTaker } from '../../src/client/perp-taker.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import type { Quote, Side } from '../../src/client/types.ts';
import { perpSweepTakerTerms } from '../../src/domain/perp/sweep.ts';
import { recoverL1Signer } from '../../src/domain/perp/recover-signer.ts';
import type { SignedVenueAction } from '../../src/domain/perp/types.ts';
import { startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';

const BUILDER = '0x00000000000000000000000000000000000000b4';
const NOW = 1_900_000_000_000;
/** ETH at the simulator: 4 size decimals. */
const SZ = 4;

function rfqOf(side: Side, baseQty: string, minFillQty?: string): PerpSweepRfq {
  return { id: 'rfq_sweep', instrumentId: 'ETH-USDC-PERP', side, baseQty, quoteLimit: side === 'BUY' ? '1080' : '1020', ...(minFillQty ? { minFillQty } : {}) };
}

/** A quote of `base` ETH for `usdc` USDC, as the taker reads it. */
function quote(side: Side, quoteId: string, base: string, usdc: string, o: Partial<Quote> = {}): Quote {
  const eth = { token: 'ETH', amount: base };
  const cash = { token: 'USDC', amount: usdc };
  return {
    rfqId: 'rfq_sweep', quoteId, version: 1, instrumentId: 'ETH-USDC-PERP', side, status: 'SUBMITTED',
    makerPays: side === 'BUY' ? eth : cash, makerReceives: side === 'BUY' ? cash : eth,
    takerTotal: side === 'BUY' ? usdc : base, receivedAt: NOW - 1000, builderFeeTenthBp: 20, allOrNone: false, ...o,
  };
}

/** BUY 0.3: A 0.12 @ 3500.1, D all-or-none 0.25 @ 3500.15 (does not fit after A), B 0.12 @ 3500.2, C 0.12 @ 3500.3 (cut to 0.06). */
const buyQuotes = (): Quote[] => [
  // Received first but priced worst: price ranks before time.
  quote('BUY', 'qt_c', '0.12', '420.036', { receivedAt: NOW - 3000 }),
  quote('BUY', 'qt_b', '0.12', '420.024', { version: 3 }),
  quote('BUY', 'qt_d', '0.25', '875.0375', { allOrNone: true }),
  quote('BUY', 'qt_a', '0.12', '420.012'),
  // Not rankable: another RFQ's, no longer open, past its maker window.
  quote('BUY', 'qt_other', '0.1', '350', { rfqId: 'rfq_other' }),
  quote('BUY', 'qt_gone', '0.1', '350', { status: 'CANCELLED' }),
  quote('BUY', 'qt_late', '0.1', '350', { acceptableForMs: 500 }),
];

describe('perp sweep plan', () => {
  it('BUY: ranks by price, passes over an all-or-none quote that does not fit, cuts the last on the size grid', () => {
    const plan = planPerpSweep(rfqOf('BUY', '0.3'), buyQuotes(), { szDecimals: SZ, takerFeeTenthBp: 20, now: NOW });
    assert.deepEqual(plan.selection.legs.map((l) => [l.quote.quoteId, l.baseQty, l.cut]), [['qt_a', 1200n, false], ['qt_b', 1200n, false], ['qt_c', 600n, true]]);
    assert.equal(plan.selection.filledBaseQty, 3000n);
    // The cut leg keeps its quote's price, rounded in the maker's favour (up on a BUY).
    assert.equal(plan.selection.legs[2]!.quoteQty, 210_018000n);
    assert.deepEqual([plan.s, plan.p], ['0.3', '3500.3'], 'the selected base at the worst selected maker price');
    const terms = perpSweepTakerTerms('BUY', plan.selection.legs, { baseDecimals: SZ, quoteDecimals: 6, szDecimals: SZ });
    assert.deepEqual({ s: plan.s, p: plan.p }, { s: terms.s, p: terms.p });
    assert.deepEqual(plan.quotes, [{ quoteId: 'qt_a', expectedVersion: 1 }, { quoteId: 'qt_b', expectedVersion: 3 }, { quoteId: 'qt_c', expectedVersion: 1 }]);
    assert.equal(plan.builderFeeTenthBp, 20);
  });

  it('SELL: the worst price is the lowest bid; a finer decimal scale gives the same terms', () => {
    const quotes = [
      quote('SELL', 'qt_hi', '0.1', '350.03'),
      quote('SELL', 'qt_lo', '0.15', '524.955'),
      quote('SELL', 'qt_mid', '0.1', '350.02'),
    ];
    const plan = planPerpSweep(rfqOf('SELL', '0.3', '0.1'), quotes, { szDecimals: SZ, takerFeeTenthBp: 20, now: NOW });
    assert.deepEqual(plan.selection.legs.map((l) => [l.quote.quoteId, l.baseQty, l.cut]), [['qt_hi', 1000n, false], ['qt_mid', 1000n, false], ['qt_lo', 1000n, true]]);
    assert.deepEqual([plan.s, plan.p], ['0.3', '3499.7']);
    // The service works at the instrument's decimals (18 for ETH): prices and steps are ratios.
    const fine = planPerpSweep({ ...rfqOf('SELL', '0.3', '0.1'), baseQty: '0.300000000000000000' }, quotes, { szDecimals: SZ, takerFeeTenthBp: 20, now: NOW });
    assert.equal(fine.decimals.baseDecimals, 18);
    assert.deepEqual([fine.s, fine.p, fine.quotes], [plan.s, plan.p, plan.quotes]);
  });

  it('short of minFillQty: SweepShortOfMinimum, nothing to sign', () => {
    const quotes = [quote('BUY', 'qt_a', '0.12', '420.012'), quote('BUY', 'qt_d', '0.25', '875.0375', { allOrNone: true })];
    assert.throws(() => planPerpSweep(rfqOf('BUY', '0.3', '0.2'), quotes, { szDecimals: SZ, takerFeeTenthBp: 20, now: NOW }), (error: unknown) => {
      assert.ok(error instanceof SweepShortOfMinimum);
      assert.equal(error.minFillQty, '0.2');
      assert.match(error.message, /cannot fill its minFillQty of 0\.2 \(of 0\.3\)/);
      return true;
    });
    // Without minFillQty the whole size is the minimum.
    assert.throws(() => planPerpSweep(rfqOf('BUY', '0.3'), quotes.slice(0, 1), { szDecimals: SZ, takerFeeTenthBp: 20, now: NOW }), SweepShortOfMinimum);
  });

  it('selected quotes under different builder rates cannot share one order', () => {
    const quotes = [quote('BUY', 'qt_a', '0.12', '420.012'), quote('BUY', 'qt_b', '0.18', '630.036', { builderFeeTenthBp: 25 })];
    assert.throws(() => planPerpSweep(rfqOf('BUY', '0.3'), quotes, { szDecimals: SZ, takerFeeTenthBp: 20, now: NOW }), /different builder fees \(20, 25\)/);
  });
});

describe('PerpTaker.acceptSweep', () => {
  let sim: VenueSim;
  let service: LoopbackServer;
  const accepts: Array<{ path: string; body: any }> = [];

  before(async () => {
    sim = await startVenueSim({ port: 0 });
    // The builder must hold value at the venue for an approval naming it.
    await new VenueSimControl(sim.url).fund({ user: BUILDER, account: 'perp', token: 'USDC', amount: '1000' });
    service = await startLoopbackServer((request, body, response) => {
      accepts.push({ path: request.url ?? '', body: JSON.parse(body) });
      const named = (JSON.parse(body) as { quotes: Array<{ quoteId: string }> }).quotes.map((q) => q.quoteId);
      response.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ rfqId: 'rfq_sweep', quoteId: named[0], status: 'PENDING', quoteIds: named }));
    });
  });
  after(async () => {
    service?.close();
    await sim?.stop();
  });

  it('approves the rate, signs one IOC over the selection and names the selected quotes in rank order', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await new VenueSimControl(sim.url).fund({ user: account.address, account: 'perp', token: 'USDC', amount: '100000' });
    const client = new RfqClient(service.url, { accessKey: 'ak_test', secret: 'secret' });
    const taker = await PerpTaker.connect(client, account, { url: sim.url, network: 'mainnet', builderAddress: BUILDER });
    const { plan, order, accepted, approvedBuilderFeeTenthBp } = await taker.acceptSweep(rfqOf('BUY', '0.3'), buyQuotes(), { now: NOW, takerFeeTenthBp: 20 });

    assert.equal(approvedBuilderFeeTenthBp, 20);
    assert.deepEqual(accepted.quoteIds, ['qt_a', 'qt_b', 'qt_c']);
    assert.equal(accepts.length, 1);
    assert.equal(accepts[0]!.path, '/v1/rfq/requests/rfq_sweep/accept');
    const body = accepts[0]!.body;
    assert.deepEqual(Object.keys(body), ['quotes', 'perpTakerOrder']);
    assert.deepEqual(body.quotes, [{ quoteId: 'qt_a', expectedVersion: 1 }, { quoteId: 'qt_b', expectedVersion: 3 }, { quoteId: 'qt_c', expectedVersion: 1 }]);
    assert.deepEqual(body.perpTakerOrder, order);

    const [placed] = order.action['orders'] as Array<Record<string, unknown>>;
    // ETH is the simulator's second coin (BTC, ETH, SOL).
    assert.deepEqual({ ...placed, c: undefined }, { a: 1, b: true, p: plan.p, s: plan.s, r: false, t: { limit: { tif: 'Ioc' } }, c: undefined });
    assert.match(placed!['c'] as string, /^0x[0-9a-f]{32}$/);
    assert.deepEqual(order.action['builder'], { b: BUILDER, f: 20 });
    // Laid out as a single quote's IOC is, key for key (the signed msgpack depends on the order).
    const single = takerOrderAction({ side: 'BUY', quote: buyQuotes()[3]!, asset: { coin: 'ETH', index: 1, szDecimals: SZ }, builderAddress: BUILDER, cloid: placed!['c'] as `0x${string}` });
    assert.deepEqual(Object.keys(order.action), Object.keys(single));
    assert.deepEqual(Object.keys(placed!), Object.keys((single['orders'] as object[])[0]!));
    assert.equal(await recoverL1Signer(order as unknown as SignedVenueAction, 'mainnet'), account.address);
  });

  it('short of minFillQty: nothing is signed or sent', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const client = new RfqClient(service.url, { accessKey: 'ak_test', secret: 'secret' });
    const taker = await PerpTaker.connect(client, account, { url: sim.url, network: 'mainnet', builderAddress: BUILDER });
    const before = accepts.length;
    await assert.rejects(taker.acceptSweep(rfqOf('BUY', '0.3'), buyQuotes().slice(0, 1), { now: NOW, takerFeeTenthBp: 20 }), SweepShortOfMinimum);
    assert.equal(accepts.length, before);
  });
});
