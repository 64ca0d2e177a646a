/**
 * `approveOmnibusAgent` (src/runtime/embedded-venue.ts) at a venue that is not the embedded
 * simulator, as the testnet smoke script uses it: an omnibus the venue has never credited is
 * refused with what to do and nothing is approved (no faucet to open it); once it holds
 * something its API wallet is approved, and a second call finds it listed and signs nothing.
 * The embedded stack's own path (`simulator: true`, the omnibus credited first) runs in every
 * `npm start` test.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startVenueSim, type VenueSim } from '../../sim/venue/index.ts';
import { VenueSimControl } from '../../sim/venue/control.ts';
import { approveOmnibusAgent } from '../../src/runtime/embedded-venue.ts';

describe('approveOmnibusAgent at an outside venue', () => {
  let sim: VenueSim;

  before(async () => {
    sim = await startVenueSim({ port: 0, config: { network: 'testnet' } });
  });

  after(async () => {
    await sim?.stop();
  });

  it('refuses an omnibus the venue does not know; approves once it has deposited, then finds it listed', async () => {
    const keys = { omnibusKey: generatePrivateKey(), agentKey: generatePrivateKey() };
    const omnibus = privateKeyToAccount(keys.omnibusKey).address;
    const agent = privateKeyToAccount(keys.agentKey).address.toLowerCase();
    const venue = { url: sim.url, network: 'testnet' as const };
    const info = new InfoClient({ transport: new HttpTransport({ apiUrl: sim.url, isTestnet: true, timeout: 10_000 }) });

    await assert.rejects(approveOmnibusAgent(venue, keys, { simulator: false }), new RegExp(`the /v0 omnibus ${omnibus} holds nothing at the venue.*deposit to it first`));
    assert.deepEqual(await info.extraAgents({ user: omnibus }), []);
    assert.deepEqual((await info.spotClearinghouseState({ user: omnibus })).balances, [], 'nothing credited to open it');

    await new VenueSimControl(sim.url).fund({ user: omnibus, account: 'spot', token: 'USDC', amount: '1' });
    assert.equal(await approveOmnibusAgent(venue, keys, { simulator: false }), 'approved');
    assert.deepEqual((await info.extraAgents({ user: omnibus })).map((a) => a.address.toLowerCase()), [agent]);
    assert.equal(await approveOmnibusAgent(venue, keys, { simulator: false }), 'already approved');
  });
});
