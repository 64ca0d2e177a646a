/**
 * Issue 13, part 3, on anvil: the follower never books a block above the chain's durable horizon
 * (the embedded devnet's last saved block), and at start it checks the store against the chain:
 * a store ahead of the chain halts the follower with one line saying so (`/readyz` 503).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { rpc, waitFor } from '../funds/helpers.ts';

for (const backend of backends()) {
  describe(`durable horizon and start-up check (${backend})`, () => {
    let chain: TestChain;
    let database: TestDatabase;
    let h: Harness | null = null;
    let horizon = 0;
    const cursor = async () => Number((await h!.node.store.db.selectFrom('chain_cursors').select('block_number').where('name', '=', 'main').executeTakeFirst())?.block_number ?? 0);
    const head = async () => Number(await rpc<string>(chain, 'eth_blockNumber'));
    const start = () => startHarness(backend, { database, chain: { ...chain.stack.settings, durableBlock: () => horizon }, tokenAddresses: chain.tokenAddresses });

    before(async () => {
      chain = await startTestChain();
      // PGlite on disk: the second test restarts the node on the same store.
      const dir = backend === 'pglite' ? await mkdtemp(path.join(os.tmpdir(), 'rfq-horizon-')) : null;
      database = dir ? { location: { kind: 'pglite', dataDir: dir }, drop: () => rm(dir, { recursive: true, force: true }) } : await createTestDatabase(backend);
    });
    after(async () => {
      await h?.close();
      await database?.drop();
      await chain?.stop();
    });

    it('books no block above the durable horizon, and follows it up', async () => {
      horizon = await head();
      h = await start();
      await waitFor('follower at the horizon', cursor, (n) => n === horizon);
      for (let i = 0; i < 4; i++) await rpc(chain, 'evm_mine');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(await cursor(), horizon, 'blocks above the saved one are not final');
      horizon += 2;
      await waitFor('follower at the raised horizon', cursor, (n) => n === horizon);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(await cursor(), horizon);
    });

    it('a store ahead of the chain: halted at start with one line, not ready', async () => {
      const snapshot = await rpc<string>(chain, 'evm_snapshot');
      for (let i = 0; i < 3; i++) await rpc(chain, 'evm_mine');
      horizon = await head();
      await waitFor('follower at the head', cursor, (n) => n === horizon);
      await h!.close();
      h = null;
      // The chain loses the blocks the store booked (as anvil did when its state was saved late).
      await rpc(chain, 'evm_revert', [snapshot]);
      h = await start();
      const readyz = async () => {
        const res = await fetch(`${h!.url}/readyz`);
        return { status: res.status, body: (await res.json()) as { reasons?: string[] } };
      };
      const notReady = await waitFor('not ready', readyz, (r) => r.status === 503);
      // Which line depends on whether anvil mined past the old height again before the check.
      const line = new RegExp(`^chain follower halted: the store has booked the chain up to block ${horizon} \\(0x[0-9a-f]{64}\\) but the chain(?:'s head is block \\d+: the chain lost blocks| has 0x[0-9a-f]{64} at that height: store and chain hold different histories)`);
      assert.match(notReady.body.reasons?.[0] ?? '', line);
    });
  });
}
