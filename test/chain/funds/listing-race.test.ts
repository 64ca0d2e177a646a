/**
 * A deposit of a token listed moments ago is credited even when this node's cached reference data
 * predates the listing (found by the seeded simulation on PostgreSQL with --chain: opening deposits
 * never credited). The chain follower asked its log filters of the cache; a cache that did not
 * yet know the token's address left its transfers out of the step, and the cursor moved past
 * them for good. The listing is made as another node would make it (this node's cache is not
 * told): the node holds a snapshot taken before it, as a node under load does for a while.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseUnits } from 'viem';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { ReferenceData } from '../../../src/store/reference-data.ts';
import { balanceOf, depositOnChain, waitFor, wallet } from './helpers.ts';

for (const backend of backends()) {
  describe(`deposit of a token listed after the node's cache (${backend})`, () => {
    let chain: TestChain;
    let h: Harness;
    before(async () => {
      chain = await startTestChain();
      // BTC is listed without its contract address: no deposit of it can be seen yet.
      const { BTC: _btc, ...listed } = chain.tokenAddresses;
      h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: listed });
    });
    after(async () => {
      await h?.close();
      await chain?.stop();
    });

    it('credits a transfer mined right after the token got its address on another node', async () => {
      const deps = h.node.context.service;
      // A cache loaded now and not refreshed for the rest of the test: it predates the listing.
      const stale = new ReferenceData(deps.db, () => deps.clock.now(), 3_600_000);
      await stale.reload();
      deps.refdata = stale;
      const user = await wallet(h, chain);
      await deps.db.updateTable('tokens').set({ address: chain.tokenAddresses.BTC!.toLowerCase() }).where('symbol', '=', 'BTC').execute();
      await depositOnChain(chain, user.account, 'BTC', parseUnits('2', 8));
      await depositOnChain(chain, user.account, 'USDC', parseUnits('3', 6));
      // The USDC deposit after it is credited: by then the follower has passed the BTC transfer's block.
      await waitFor('USDC credited', () => balanceOf(user.client, 'USDC'), (b) => b?.total === '3');
      const btc = await balanceOf(user.client, 'BTC');
      assert.equal(btc?.total, '2', `the BTC transfer was passed over: ${JSON.stringify(btc)}`);
    });
  });
}
