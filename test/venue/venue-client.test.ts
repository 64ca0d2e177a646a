/**
 * The venue adapter against the venue simulator over HTTP: the readers, a pre-signed order sent
 * as signed and found again by its cloid, the venue's refusal as a reply (not an exception), the
 * meta cache against `freshMeta`, and the timeout at every call.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { signL1Action } from '@nktkas/hyperliquid/signing';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { startVenueSim, type VenueSim } from '../../sim/venue/index.ts';
import { VenueSimControl } from '../../sim/venue/control.ts';
import { VenueClient, VenueUnavailableError } from '../../src/venue/venue-client.ts';
import { findCoin } from '../../src/services/perp/venue-port.ts';

describe('VenueClient against the simulator', () => {
  let sim: VenueSim;
  let venue: VenueClient;
  let now = 1_000;
  before(async () => {
    sim = await startVenueSim({ port: 0 });
    venue = new VenueClient({ url: sim.url, network: 'mainnet', builderAddress: '0x00000000000000000000000000000000000000B1', metaCacheMs: 1000, now: () => now });
  });
  after(async () => sim?.stop());

  it('reads meta (cached) and freshMeta (never cached), exact names with their indices', async () => {
    const meta = await venue.meta();
    assert.deepEqual(findCoin(meta, 'ETH'), { name: 'ETH', szDecimals: 4, isDelisted: false, assetIndex: 1 });
    assert.equal(findCoin(meta, 'eth'), null, 'exact name only');
    assert.equal(await venue.meta(), meta, 'served from the cache within its TTL');
    const fresh = await venue.freshMeta();
    assert.notEqual(fresh, meta, 'freshMeta always asks');
    now += 1000;
    assert.notEqual(await venue.meta(), fresh, 'the cache expires');
    assert.equal(venue.builderAddress, '0x00000000000000000000000000000000000000b1', 'builder address kept lower case');
  });

  it('reads extraAgents, maxBuilderFee and fills of a fresh user', async () => {
    const user = privateKeyToAccount(generatePrivateKey()).address;
    assert.deepEqual(await venue.extraAgents(user), []);
    assert.equal(await venue.maxBuilderFee(user, venue.builderAddress!), 0);
    assert.deepEqual(await venue.userFillsByTime(user, 0), []);
  });

  it('sends a pre-signed order as signed, finds it by cloid, and returns a refusal as a reply', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const c = `0x${randomBytes(16).toString('hex')}` as Hex;
    const action = { type: 'order', orders: [{ a: 1, b: true, p: '1000', s: '0.1', r: false, t: { limit: { tif: 'Gtc' } }, c }], grouping: 'na' };
    const nonce = Date.now();
    const signature = await signL1Action({ wallet, action, nonce });
    const sign = { action, nonce, signature: signature as { r: Hex; s: Hex; v: 27 | 28 } };
    // An unknown, unfunded account: the venue refuses, and the adapter hands back its reply.
    const refused = await venue.sendExchange(sign);
    assert.ok(refused.status === 'err' || JSON.stringify(refused).includes('error'), JSON.stringify(refused));
    assert.deepEqual(await venue.orderStatusByCloid(wallet.address, c), { status: 'unknownOid' });

    await new VenueSimControl(sim.url).fund({ user: wallet.address, account: 'perp', token: 'USDC', amount: '10000' });
    const c2 = `0x${randomBytes(16).toString('hex')}` as Hex;
    const resting = { type: 'order', orders: [{ a: 1, b: true, p: '1000', s: '0.1', r: false, t: { limit: { tif: 'Gtc' } }, c: c2 }], grouping: 'na' };
    const nonce2 = nonce + 1;
    const reply = await venue.sendExchange({ action: resting, nonce: nonce2, signature: (await signL1Action({ wallet, action: resting, nonce: nonce2 })) as { r: Hex; s: Hex; v: 27 | 28 } });
    assert.match(JSON.stringify(reply), /resting/);
    const status = await venue.orderStatusByCloid(wallet.address, c2);
    assert.equal(status.status, 'order');
  });

  it('bounds every call with its timeout', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const stuck = new VenueClient({ url: `http://127.0.0.1:${port}`, network: 'mainnet', builderAddress: null, requestTimeoutMs: 100 });
    try {
      const started = Date.now();
      await assert.rejects(stuck.freshMeta(), VenueUnavailableError);
      await assert.rejects(stuck.maxBuilderFee('0x0000000000000000000000000000000000000001', '0x0000000000000000000000000000000000000002', 50), VenueUnavailableError);
      assert.ok(Date.now() - started < 2000, 'both calls gave up at their bound');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
