/**
 * A chain follower halted by a reorganisation deeper than its confirmation depth is loud:
 * `/readyz` is not ready and says why, `GET /admin/v1/invariants` reports
 * `chainFollowerHalted`, and the gauge `rfq_chain_follower_halted` is 1. anvil makes the
 * reorganisation: revert to a snapshot below the follower's cursor, then mine new blocks at the
 * same heights.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { rpc, waitFor } from '../funds/helpers.ts';

for (const backend of backends()) {
  describe(`halted chain follower (${backend})`, () => {
    let chain: TestChain;
    let database: TestDatabase;
    let h: Harness;
    const cursor = async () => (await h.node.store.db.selectFrom('chain_cursors').select('block_number').where('name', '=', 'main').executeTakeFirst())?.block_number ?? 0;
    const readyz = async () => {
      const res = await fetch(`${h.url}/readyz`);
      return { status: res.status, body: (await res.json()) as { status: string; reasons?: string[] } };
    };

    before(async () => {
      chain = await startTestChain();
      database = await createTestDatabase(backend);
      h = await startHarness(backend, { database, chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses });
    });
    after(async () => {
      await h?.close();
      await database?.drop();
      await chain?.stop();
    });

    it('a reorganisation below the cursor: not ready, an invariant violation and a gauge', async () => {
      assert.equal((await readyz()).status, 200);
      const snapshot = await rpc<string>(chain, 'evm_snapshot');
      const forkedAt = Number(await rpc<string>(chain, 'eth_blockNumber'));
      for (let i = 0; i < 3; i++) await rpc(chain, 'evm_mine');
      await waitFor('follower past the fork point', cursor, (n) => n >= forkedAt + 2);
      await rpc(chain, 'evm_revert', [snapshot]);
      // New blocks at the same heights (other timestamps, so other hashes), then above the cursor.
      await rpc(chain, 'evm_increaseTime', [7]);
      for (let i = 0; i < 6; i++) await rpc(chain, 'evm_mine');

      const notReady = await waitFor('not ready', readyz, (r) => r.status === 503);
      assert.equal(notReady.body.status, 'not ready');
      assert.match(notReady.body.reasons?.[0] ?? '', /chain follower halted: .*reorganisation deeper than 1 confirmations/);
      const report = await h.admin.invariants();
      assert.equal(report.ok, false);
      assert.ok(report.violations.some((v) => v['check'] === 'chainFollowerHalted'), JSON.stringify(report.violations));
      assert.match(await (await fetch(`${h.url}/metrics`)).text(), /^rfq_chain_follower_halted 1$/m);
    });
  });
}
