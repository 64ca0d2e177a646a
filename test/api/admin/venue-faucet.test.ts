/** POST /admin/v1/devnet/venue-faucet: credits the embedded venue simulator, refused elsewhere. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { testAccount } from '../../helpers/chain.ts';
import { startVenueSim, type VenueSim } from '../../../sim/venue/index.ts';
import { parseUnits } from '../../../sim/venue/decimal.ts';
import { venueFaucetOf } from '../../../src/runtime/embedded-venue.ts';

async function info(sim: VenueSim, body: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${sim.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return response.json();
}

for (const backend of backends()) {
  describe(`venue faucet [${backend}]`, () => {
    let sim: VenueSim;
    let embedded: Harness;
    let production: Harness;
    before(async () => {
      sim = await startVenueSim({ dataDir: null, port: 0 });
      const venue = { url: sim.url, network: 'mainnet' as const, builderAddress: null };
      embedded = await startHarness(backend, { embedded: true, venue, embeddedVenue: { url: sim.url, faucet: venueFaucetOf(sim) } });
      production = await startHarness(backend, { venue });
    });
    after(async () => {
      await embedded?.close();
      await production?.close();
      await sim?.stop();
    });

    it('credits perp margin and a spot token at the simulator, exactly', async () => {
      const to = testAccount().address;
      await embedded.admin.venueFaucet({ address: to, account: 'perp', token: 'USDC', amount: '1234.567891' });
      await embedded.admin.venueFaucet({ address: to, account: 'spot', token: 'USDC', amount: '10.5' });
      const perp = await info(sim, { type: 'clearinghouseState', user: to });
      assert.equal(parseUnits(perp.marginSummary.accountValue), parseUnits('1234.567891'));
      const spot = await info(sim, { type: 'spotClearinghouseState', user: to });
      assert.equal(parseUnits(spot.balances.find((b: { coin: string }) => b.coin === 'USDC')?.total), parseUnits('10.5'));
    });

    it('refuses what the simulator refuses as bad input, and changes nothing', async () => {
      const to = testAccount().address;
      await rejects(embedded.admin.venueFaucet({ address: to, account: 'spot', token: 'DOGE', amount: '1' }), 400, 'INVALID_REQUEST');
      await rejects(embedded.admin.venueFaucet({ address: to, account: 'perp', token: 'USDC', amount: '1.0000001' }), 400, 'INVALID_REQUEST');
      await rejects(embedded.admin.venueFaucet({ address: to, account: 'perp', token: 'USDC', amount: '-1' }), 400, 'INVALID_REQUEST');
      await rejects(embedded.admin.venueFaucet({ address: to, account: 'margin' as 'perp', token: 'USDC', amount: '1' }), 400, 'INVALID_REQUEST');
      await rejects(embedded.admin.http.send('POST', '/admin/v1/devnet/venue-faucet', { body: { address: to, account: 'spot', token: 'USDC', amount: '1' } }), 401, 'ADMIN_UNAUTHORIZED');
      const spot = await info(sim, { type: 'spotClearinghouseState', user: to });
      assert.deepEqual(spot.balances, []);
    });

    it('is refused outside the embedded stack', async () => {
      const to = testAccount().address;
      await rejects(production.admin.venueFaucet({ address: to, account: 'perp', token: 'USDC', amount: '1' }), 503, 'NOT_AVAILABLE');
      const perp = await info(sim, { type: 'clearinghouseState', user: to });
      assert.equal(parseUnits(perp.marginSummary.accountValue), 0n);
    });
  });
}
