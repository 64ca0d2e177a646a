// The simulator's realistic profile (sim/venue/profile.ts, README): the weight limit with 429 and
// Retry-After (the control surface free), the builder's 100 USDC, named-only `extraAgents`, read
// lag after an order is placed, and the ledger's page cap.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveProfile } from '../../../sim/venue/profile.ts';
import { limit, newWallet, restingOf, startSim, type SimFixture } from './helpers.ts';
import { waitFor } from '../../helpers/eventually.ts';

const ETH = 1;
const BUILDER = '0x00000000000000000000000000000000000000b1';
let f: SimFixture;
before(async () => {
  // No latency and a small limit, so the test is quick; the other behaviours as realistic has them.
  f = await startSim({ profile: resolveProfile('realistic', { latency: null, weightPerMin: 100, readLagMs: 400, pageCaps: { ledgerUpdates: 3, fills: 2000 } }) });
});
after(() => f.sim.stop());

const info = (body: unknown) => fetch(`${f.sim.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('venue simulator: realistic profile', () => {
  it('answers 429 with Retry-After past the minute\'s weight; the control surface spends none', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await info({ type: 'meta' })).status);
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    const refused = await info({ type: 'allMids' });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    // The control surface still answers.
    await f.control.fund({ user: newWallet().address, account: 'perp', token: 'USDC', amount: '1' });
  });
});

describe('venue simulator: realistic profile, with room to spend', () => {
  let g: SimFixture;
  before(async () => {
    g = await startSim({ profile: resolveProfile('realistic', { latency: null, readLagMs: 400, pageCaps: { ledgerUpdates: 3, fills: 2000 } }) });
  });
  after(() => g.sim.stop());
  const post = async (body: unknown) => (await fetch(`${g.sim.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

  it('refuses a builder fee approval for a builder without 100 USDC of perps account value', async () => {
    const user = newWallet();
    await g.control.fund({ user: user.address, account: 'perp', token: 'USDC', amount: '1000' });
    await assert.rejects(g.exchange(user).approveBuilderFee({ maxFeeRate: '0.02%', builder: BUILDER }), /Builder has insufficient balance to be approved\./);
    await g.control.fund({ user: BUILDER, account: 'perp', token: 'USDC', amount: '100' });
    await g.exchange(user).approveBuilderFee({ maxFeeRate: '0.02%', builder: BUILDER });
  });

  it('lists named API wallets only in extraAgents; userRole finds the unnamed one', async () => {
    const user = newWallet();
    await g.control.fund({ user: user.address, account: 'perp', token: 'USDC', amount: '1000' });
    const named = newWallet();
    const unnamed = newWallet();
    await g.exchange(user).approveAgent({ agentAddress: named.address, agentName: 'desk' });
    await g.exchange(user).approveAgent({ agentAddress: unnamed.address, agentName: null });
    const agents = (await post({ type: 'extraAgents', user: user.address })) as Array<{ address: string }>;
    assert.deepEqual(agents.map((a) => a.address), [named.address.toLowerCase()]);
    assert.deepEqual(await post({ type: 'userRole', user: unnamed.address }), { role: 'agent', data: { user: user.address.toLowerCase() } });
  });

  it('an order just placed reads unknownOid for a moment, then its status', async () => {
    const user = newWallet();
    await g.control.fund({ user: user.address, account: 'perp', token: 'USDC', amount: '100000' });
    const { oid } = restingOf(await g.exchange(user).order({ orders: [limit(ETH, true, '3000', '0.01', 'Alo')], grouping: 'na' }));
    assert.deepEqual(await post({ type: 'orderStatus', user: user.address, oid }), { status: 'unknownOid' });
    await waitFor(async () => ((await post({ type: 'orderStatus', user: user.address, oid })) as { status: string }).status === 'order', 'the order shows once its look-up lag has passed');
  });

  it('caps a ledger reply at its page size', async () => {
    const user = newWallet();
    for (let i = 0; i < 5; i++) await g.control.fund({ user: user.address, account: 'spot', token: 'USDC', amount: '1' });
    const to = newWallet();
    for (let i = 0; i < 5; i++) await g.exchange(user).spotSend({ destination: to.address, token: 'USDC:0x6d1e7cde53ba9467b783cb7c530ce054', amount: '0.5' });
    const rows = (await post({ type: 'userNonFundingLedgerUpdates', user: user.address, startTime: 0 })) as unknown[];
    assert.equal(rows.length, 3);
  });
});
