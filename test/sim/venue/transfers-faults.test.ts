// Transfers and their ledger updates, fault rules, and a restart from the data directory.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startVenueSimProcess } from '../../../sim/venue/launch.ts';
import { VenueSimControl } from '../../../sim/venue/control.ts';
import { cloidOf, filledOf, limit, newWallet, postRaw, RecordingTransport, restingOf, startSim, type SimFixture } from './helpers.ts';
import { ExchangeClient, HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { elapse } from '../../helpers/eventually.ts';

const ETH = 1;
const USDC_SPEC = 'USDC:0x6d1e7cde53ba9467b783cb7c530ce054';
let f: SimFixture;
const dirs: string[] = [];
before(async () => {
  f = await startSim({ faultHoldMs: 200 });
});
after(async () => {
  await f.sim.stop();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function funded() {
  const w = newWallet();
  await f.control.fund({ user: w.address, account: 'perp', token: 'USDC', amount: '100000' });
  return w;
}

describe('venue simulator: transfers', () => {
  it('spotSend moves a spot balance and shows in both ledgers with one hash', async () => {
    const a = newWallet();
    const b = newWallet();
    await f.control.fund({ user: a.address, account: 'spot', token: 'USDC', amount: '100' });
    assert.deepEqual(await f.info.userRole({ user: b.address }), { role: 'missing' });
    await f.exchange(a).spotSend({ destination: b.address, token: USDC_SPEC, amount: '25.5' });
    const bal = await f.info.spotClearinghouseState({ user: b.address });
    assert.deepEqual(bal.balances.map((x) => [x.coin, x.total]), [['USDC', '25.5']]);
    assert.deepEqual(await f.info.userRole({ user: b.address }), { role: 'user' });
    const la = await f.info.userNonFundingLedgerUpdates({ user: a.address, startTime: 0 });
    const lb = await f.info.userNonFundingLedgerUpdates({ user: b.address, startTime: 0 });
    assert.equal(lb.length, 1);
    const delta = lb[0]!.delta;
    assert.equal(delta.type, 'spotTransfer');
    assert.ok(delta.type === 'spotTransfer' && delta.amount === '25.5' && delta.token === 'USDC' && delta.destination === b.address.toLowerCase());
    assert.equal(la.at(-1)!.hash, lb[0]!.hash);
    await assert.rejects(f.exchange(a).spotSend({ destination: b.address, token: USDC_SPEC, amount: '75' }), /Insufficient balance/);
  });

  it('usdSend moves perp USDC from the withdrawable balance', async () => {
    const a = await funded();
    const b = newWallet();
    await f.exchange(a).usdSend({ destination: b.address, amount: '40' });
    assert.equal((await f.info.clearinghouseState({ user: b.address })).withdrawable, '40.0');
    assert.equal((await f.info.clearinghouseState({ user: a.address })).withdrawable, '99960.0');
    const [update] = await f.info.userNonFundingLedgerUpdates({ user: b.address, startTime: 0 });
    assert.ok(update!.delta.type === 'internalTransfer' && update!.delta.usdc === '40.0');
  });
});

describe('venue simulator: faults', () => {
  it('reject and http answer without applying', async () => {
    const w = await funded();
    await f.control.addFault({ match: { action: 'order', user: w.address }, effect: { type: 'reject', message: 'simulated refusal' } });
    await assert.rejects(f.exchange(w).order({ orders: [limit(ETH, true, '3000', '0.01', 'Alo', cloidOf(1))], grouping: 'na' }), /simulated refusal/);
    await f.control.addFault({ match: { endpoint: 'exchange', cloid: cloidOf(2) }, effect: { type: 'http', status: 503 } });
    await assert.rejects(f.exchange(w).order({ orders: [limit(ETH, true, '3000', '0.01', 'Alo', cloidOf(2))], grouping: 'na' }), /503/);
    assert.deepEqual(await f.info.openOrders({ user: w.address }), []);
    // Counts are used up: the same orders now rest.
    restingOf(await f.exchange(w).order({ orders: [limit(ETH, true, '3000', '0.01', 'Alo', cloidOf(1))], grouping: 'na' }));
  });

  it('timeoutAfterApply applies without a reply, timeoutBeforeApply does not apply', async () => {
    const w = await funded();
    await f.control.addFault({ match: { cloid: cloidOf(10) }, effect: { type: 'timeoutAfterApply' } });
    await assert.rejects(f.exchange(w).order({ orders: [limit(ETH, true, '3600', '0.01', 'Ioc', cloidOf(10))], grouping: 'na' }));
    const applied = await f.info.orderStatus({ user: w.address, oid: cloidOf(10) });
    assert.equal(applied.status === 'order' && applied.order.status, 'filled');
    assert.equal((await f.info.userFills({ user: w.address }))[0]!.cloid, cloidOf(10));

    await f.control.addFault({ match: { cloid: cloidOf(11) }, effect: { type: 'timeoutBeforeApply' } });
    await assert.rejects(f.exchange(w).order({ orders: [limit(ETH, true, '3600', '0.01', 'Ioc', cloidOf(11))], grouping: 'na' }));
    assert.deepEqual(await f.info.orderStatus({ user: w.address, oid: cloidOf(11) }), { status: 'unknownOid' });

    // reject with applied: placed, then refused (as a resend of the same bytes meets its own nonce).
    await f.control.addFault({ match: { cloid: cloidOf(12) }, effect: { type: 'reject', message: 'Invalid nonce: duplicate nonce', applied: true } });
    await assert.rejects(f.exchange(w).order({ orders: [limit(ETH, true, '3600', '0.01', 'Ioc', cloidOf(12))], grouping: 'na' }), /duplicate nonce/);
    const placed = await f.info.orderStatus({ user: w.address, oid: cloidOf(12) });
    assert.equal(placed.status === 'order' && placed.order.status, 'filled');
  });

  it('applyLater applies after the delay; unknownOid hides an order once; partialFill caps a fill', async () => {
    const w = await funded();
    await f.control.addFault({ match: { cloid: cloidOf(20) }, effect: { type: 'applyLater', delayMs: 400 } });
    await assert.rejects(f.exchange(w).order({ orders: [limit(ETH, true, '3000', '0.01', 'Gtc', cloidOf(20))], grouping: 'na' }));
    assert.deepEqual(await f.info.orderStatus({ user: w.address, oid: cloidOf(20) }), { status: 'unknownOid' });
    await elapse(500, 'past the fault\'s 400 ms delay');
    const later = await f.info.orderStatus({ user: w.address, oid: cloidOf(20) });
    assert.equal(later.status === 'order' && later.order.status, 'open');

    await f.control.addFault({ match: { infoType: 'orderStatus', cloid: cloidOf(20) }, effect: { type: 'unknownOid' }, count: 1 });
    assert.deepEqual(await f.info.orderStatus({ user: w.address, oid: cloidOf(20) }), { status: 'unknownOid' });
    assert.equal((await f.info.orderStatus({ user: w.address, oid: cloidOf(20) })).status, 'order');

    await f.control.addFault({ match: { cloid: cloidOf(21) }, effect: { type: 'partialFill', fraction: '0.5' } });
    const part = filledOf(await f.exchange(w).order({ orders: [limit(ETH, true, '3600', '0.1', 'Ioc', cloidOf(21))], grouping: 'na' }));
    assert.equal(part.totalSz, '0.05');
  });

  it('infoDown drops /info connections for the matching requests only', async () => {
    const w = await funded();
    await f.control.addFault({ match: { infoType: 'maxBuilderFee' }, effect: { type: 'infoDown' }, count: 2 });
    await assert.rejects(f.info.maxBuilderFee({ user: w.address, builder: newWallet().address }));
    assert.ok((await f.info.meta()).universe.length > 0);
    await assert.rejects(f.info.maxBuilderFee({ user: w.address, builder: newWallet().address }));
    assert.equal(await f.info.maxBuilderFee({ user: w.address, builder: newWallet().address }), 0);
    assert.deepEqual(await f.control.faults(), []);
  });
});

describe('venue simulator: restart', () => {
  it('resumes from its data directory: balances, resting orders, nonces, agents (in-process, then as a child process)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'venue-sim-'));
    dirs.push(dir);
    const first = await startSim({ dataDir: dir });
    const w = newWallet();
    const agent = newWallet();
    const recording = new RecordingTransport({ apiUrl: first.sim.url, timeout: 5_000 });
    let oid: number;
    try {
      await first.control.fund({ user: w.address, account: 'perp', token: 'USDC', amount: '5000' });
      await first.exchange(w).approveAgent({ agentAddress: agent.address, agentName: 'bot' });
      const ex = new ExchangeClient({ transport: recording, wallet: agent });
      oid = restingOf(await ex.order({ orders: [limit(ETH, true, '3000', '0.01', 'Gtc', cloidOf(30))], grouping: 'na' })).oid;
    } finally {
      await first.sim.stop();
    }

    const second = await startSim({ dataDir: dir });
    try {
      assert.deepEqual((await second.info.openOrders({ user: w.address })).map((o) => o.oid), [oid]);
      assert.equal((await second.info.extraAgents({ user: w.address }))[0]!.address, agent.address.toLowerCase());
      assert.deepEqual(await postRaw(second.sim.url, 'exchange', recording.last), { status: 'err', response: 'Invalid nonce: duplicate nonce' });
    } finally {
      await second.sim.stop();
    }

    const child = await startVenueSimProcess({ dataDir: dir });
    try {
      const info = new InfoClient({ transport: new HttpTransport({ apiUrl: child.url }) });
      assert.equal((await info.clearinghouseState({ user: w.address })).marginSummary.accountValue, '5000.0');
      await new VenueSimControl(child.url).fund({ user: w.address, account: 'perp', token: 'USDC', amount: '1' });
    } finally {
      await child.stop();
    }
    const third = await startSim({ dataDir: dir });
    try {
      assert.equal((await third.info.clearinghouseState({ user: w.address })).marginSummary.accountValue, '5001.0');
    } finally {
      await third.sim.stop();
    }
  });
});
