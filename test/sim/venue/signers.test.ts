// Who may act at the simulator: signer recovery, the nonce rules, API wallets with expiry,
// builder-fee approvals and their enforcement, the network a signature names.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ExchangeClient, HttpTransport } from '@nktkas/hyperliquid';
import type { PrivateKeyAccount } from 'viem/accounts';
import { parseUnits } from '../../../sim/venue/decimal.ts';
import { cloidOf, filledOf, limit, newWallet, postRaw, RecordingTransport, restingOf, startSim, type SimFixture } from './helpers.ts';

const ETH = 1;
const units = (text: string): bigint => parseUnits(text) ?? assert.fail(`not a decimal: ${text}`);
const SET_SIZE = 5;
let f: SimFixture;
before(async () => {
  f = await startSim({ config: { nonces: { setSize: SET_SIZE } } });
});
after(() => f.sim.stop());

async function funded() {
  const w = newWallet();
  await f.control.fund({ user: w.address, account: 'perp', token: 'USDC', amount: '100000' });
  return w;
}

/** An exchange client whose next nonce the test chooses. */
function withNonces(wallet: PrivateKeyAccount, transport = new HttpTransport({ apiUrl: f.sim.url, timeout: 5_000 })) {
  let next = 0;
  const client = new ExchangeClient({ transport, wallet, nonceManager: () => next });
  return { client, transport, send: (nonce: number) => ((next = nonce), client) };
}

const farBid = () => ({ orders: [limit(ETH, true, '3000', '0.01', 'Alo')], grouping: 'na' as const });

describe('venue simulator: signers and nonces', () => {
  it('refuses an unknown signer and a signature for the other network', async () => {
    await assert.rejects(f.exchange(newWallet()).order(farBid()), /User or API Wallet 0x[0-9a-f]{40} does not exist\./);
    const w = await funded();
    const testnet = new ExchangeClient({ transport: new HttpTransport({ apiUrl: f.sim.url, isTestnet: true }), wallet: w });
    await assert.rejects(testnet.order(farBid()), /does not exist/); // source "b" recovers another address
    restingOf(await f.exchange(w).order(farBid()));
  });

  it('keeps the highest nonces per signer: duplicates, too low, outside the time window', async () => {
    const w = await funded();
    const recording = new RecordingTransport({ apiUrl: f.sim.url, timeout: 5_000 });
    const { send } = withNonces(w, recording);
    const { nowMs } = await f.control.clock();
    restingOf(await send(nowMs).order(farBid()));
    // The exact signed request again: refused, nothing applied.
    assert.deepEqual(await postRaw(f.sim.url, 'exchange', recording.last), { status: 'err', response: 'Invalid nonce: duplicate nonce' });
    await assert.rejects(send(nowMs).order(farBid()), /Invalid nonce: duplicate nonce/);
    // Below the newest but not yet pushed out of the kept set: still accepted.
    restingOf(await send(nowMs - 10).order(farBid()));
    for (let k = 1; k <= SET_SIZE; k++) restingOf(await send(nowMs + k).order(farBid()));
    // The set holds now+1..now+5: anything at or below its smallest is too low.
    await assert.rejects(send(nowMs - 5).order(farBid()), /Invalid nonce: nonce too low/);
    await assert.rejects(send(nowMs + 1).order(farBid()), /Invalid nonce: duplicate nonce/);
    await assert.rejects(send(nowMs - 3 * 86_400_000).order(farBid()), /Invalid nonce/);
    await assert.rejects(send(nowMs + 2 * 86_400_000).order(farBid()), /Invalid nonce: nonce too far in the future/);

    const fresh = await funded();
    const one = withNonces(fresh);
    await assert.rejects(one.send(nowMs - 86_400_000 - 1000).order(farBid()), /Invalid nonce: nonce too far in the past/);
    assert.equal((await f.info.openOrders({ user: w.address })).length, 1 + 1 + SET_SIZE);
  });

  it('follows the venue\u2019s current rule by default: the 20 highest kept, within one day', async () => {
    const g = await startSim();
    try {
      const w = newWallet();
      await g.control.fund({ user: w.address, account: 'perp', token: 'USDC', amount: '100000' });
      let next = 0;
      const client = new ExchangeClient({ transport: new HttpTransport({ apiUrl: g.sim.url, timeout: 5_000 }), wallet: w, nonceManager: () => next });
      const send = (nonce: number) => ((next = nonce), client);
      const { nowMs } = await g.control.clock();
      await assert.rejects(send(nowMs - 86_400_000 - 1000).order(farBid()), /Invalid nonce: nonce too far in the past/);
      restingOf(await send(nowMs - 86_400_000 + 60_000).order(farBid()));
      for (let k = 1; k <= 20; k++) restingOf(await send(nowMs + k).order(farBid()));
      // 21 accepted: the first (the lowest) is no longer kept, so anything at or below now+1 is too low.
      await assert.rejects(send(nowMs - 1000).order(farBid()), /Invalid nonce: nonce too low/);
    } finally {
      await g.sim.stop();
    }
  });

  it('burned nonces make an order signed earlier too old', async () => {
    const w = await funded();
    const { send } = withNonces(w);
    const { nowMs } = await f.control.clock();
    await f.control.burnNonces(w.address, nowMs + 100);
    await assert.rejects(send(nowMs + 50).order(farBid()), /Invalid nonce: nonce too low/);
    restingOf(await send(nowMs + 101).order(farBid()));
  });
});

describe('venue simulator: API wallets', () => {
  it('an approved API wallet acts for its master until valid_until, and cannot sign user actions', async () => {
    const master = await funded();
    const agent = newWallet();
    const { nowMs } = await f.control.clock();
    const validUntil = nowMs + 60_000;
    await f.exchange(master).approveAgent({ agentAddress: agent.address, agentName: `rfq valid_until ${validUntil}` });
    assert.deepEqual(await f.info.extraAgents({ user: master.address }), [
      { address: agent.address.toLowerCase(), name: 'rfq', validUntil },
    ]);
    assert.deepEqual(await f.info.userRole({ user: agent.address }), { role: 'agent', data: { user: master.address.toLowerCase() } });

    const viaAgent = f.exchange(agent);
    const r = await viaAgent.order({ orders: [limit(ETH, true, '3000', '0.01', 'Gtc', cloidOf(900))], grouping: 'na' });
    const { oid } = restingOf(r);
    const open = await f.info.openOrders({ user: master.address });
    assert.deepEqual(open.map((o) => o.oid), [oid]);
    assert.deepEqual(await f.info.openOrders({ user: agent.address }), []);
    await assert.rejects(viaAgent.approveBuilderFee({ builder: newWallet().address, maxFeeRate: '0.01%' }), /main wallet/);

    await f.control.clock({ advanceMs: 61_000 });
    await assert.rejects(viaAgent.cancelByCloid({ cancels: [{ asset: ETH, cloid: cloidOf(900) }] }), /User or API Wallet .* does not exist/);
    await f.control.clock({ advanceMs: -61_000 });

    // Approving the same name again replaces the wallet; an unnamed one gets the default validity.
    const second = newWallet();
    await f.exchange(master).approveAgent({ agentAddress: second.address, agentName: 'rfq' });
    const unnamed = newWallet();
    await f.exchange(master).approveAgent({ agentAddress: unnamed.address, agentName: null });
    // extraAgents lists the named ones only; the unnamed one is found through userRole.
    const agents = await f.info.extraAgents({ user: master.address });
    assert.equal(agents.length, 1);
    assert.deepEqual(await f.info.userRole({ user: unnamed.address }), { role: 'agent', data: { user: master.address.toLowerCase() } });
    assert.ok(agents.some((a) => a.address === second.address.toLowerCase() && a.name === 'rfq' && a.validUntil > validUntil));
    await assert.rejects(viaAgent.order(farBid()), /does not exist/);
  });
});

describe('venue simulator: builder fees', () => {
  it('charges an approved builder fee to the order and credits the builder; refuses above approval or 0.1 % on perps', async () => {
    const taker = await funded();
    const builder = await funded();
    const ex = f.exchange(taker);
    const ioc = (fee: number) => ({ orders: [limit(ETH, true, '3600', '0.01', 'Ioc')], grouping: 'na' as const, builder: { b: builder.address, f: fee } });
    await assert.rejects(ex.order(ioc(10)), /Builder fee has not been approved/);
    await ex.approveBuilderFee({ builder: builder.address, maxFeeRate: '0.05%' });
    assert.equal(await f.info.maxBuilderFee({ user: taker.address, builder: builder.address }), 50);
    await assert.rejects(ex.order(ioc(51)), /Builder fee has not been approved/);
    await ex.approveBuilderFee({ builder: builder.address, maxFeeRate: '1%' });
    await assert.rejects(ex.order(ioc(101)), /Builder fee is above the maximum/);

    const before = (await f.info.clearinghouseState({ user: builder.address })).marginSummary.accountValue;
    const filled = filledOf(await ex.order(ioc(50)));
    const [fill] = await f.info.userFills({ user: taker.address });
    // 0.05 % of the notional (px 10^-8 units x 0.01), rounded up to 10^-8.
    const notional = (units(filled.avgPx) * units('0.01')) / 10n ** 8n;
    const expected = (notional * 50n + 99_999n) / 100_000n;
    assert.equal(units(fill!.builderFee!), expected);
    const after = (await f.info.clearinghouseState({ user: builder.address })).marginSummary.accountValue;
    assert.equal(units(after) - units(before), expected);
  });
});
