/**
 * On anvil: the follower never books a block above the chain's durable horizon
 * (the embedded devnet's last saved block), and at start it checks the store against the chain:
 * a store ahead of the chain halts the follower with one line saying so (`/readyz` 503).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
      // A step of the follower begun after the blocks were mined has ended: it saw them.
      await h.node.afterPass('chain-follower');
      assert.equal(await cursor(), horizon, 'blocks above the saved one are not final');
      horizon += 2;
      await waitFor('follower at the raised horizon', cursor, (n) => n === horizon);
      await h.node.afterPass('chain-follower');
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
      // Which line depends on whether anvil mined past the old height again before the check (or,
      // as seen once in CI, reported a head past it with no block at that height).
      const line = new RegExp(`^chain follower halted: the store has booked the chain up to block ${horizon} \\(0x[0-9a-f]{64}\\) but the chain(?:'s head is block \\d+(?: and it has no block ${horizon})?: the chain lost blocks| has 0x[0-9a-f]{64} at that height: store and chain hold different histories)`);
      assert.match(notReady.body.reasons?.[0] ?? '', line);
    });

    it('a chain whose head is past the store but has no block at its height: retried, then halted with one line', async () => {
      await h?.close();
      h = null;
      const own = backend === 'pglite' ? await mkdtemp(path.join(os.tmpdir(), 'rfq-horizon-')) : null;
      const store: TestDatabase = own ? { location: { kind: 'pglite', dataDir: own }, drop: () => rm(own, { recursive: true, force: true }) } : await createTestDatabase(backend);
      // Anvil answering through a relay that hides one block, as anvil itself was seen to after
      // a revert under its interval miner: a head past the block, and no block at its height.
      let hidden = -1;
      let asked = 0;
      const relay = http.createServer((req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', async () => {
          const parsed = JSON.parse(body) as RpcCall | RpcCall[];
          const answer = async (call: RpcCall) => {
            if (call.method === 'eth_getBlockByNumber' && call.params[0] === `0x${hidden.toString(16)}`) {
              asked++;
              return { jsonrpc: '2.0', id: call.id, result: null };
            }
            const upstream = await fetch(chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call) });
            return upstream.json();
          };
          const out = Array.isArray(parsed) ? await Promise.all(parsed.map(answer)) : await answer(parsed);
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(out));
        });
      });
      await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
      const relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
      try {
        horizon = await head();
        h = await startHarness(backend, { database: store, chain: { ...chain.stack.settings, durableBlock: () => horizon }, tokenAddresses: chain.tokenAddresses });
        await waitFor('follower at the head', cursor, (n) => n === horizon);
        await h.close();
        h = null;
        hidden = horizon;
        h = await startHarness(backend, { database: store, chain: { ...chain.stack.settings, rpcUrl: relayUrl, durableBlock: () => horizon }, tokenAddresses: chain.tokenAddresses });
        const notReady = await waitFor('not ready', async () => (await fetch(`${h!.url}/readyz`)).json() as Promise<{ reasons?: string[] }>, (r) => (r.reasons ?? []).some((x) => x.startsWith('chain follower halted')));
        const reason = notReady.reasons!.find((x) => x.startsWith('chain follower halted'))!;
        assert.match(reason, new RegExp(`^chain follower halted: the store has booked the chain up to block ${horizon} \\(0x[0-9a-f]{64}\\) but the chain's head is block \\d+ and it has no block ${horizon}: the chain lost blocks`));
        assert.ok(asked >= 5, `asked ${asked} times for the block before halting`);
      } finally {
        await h?.close();
        h = null;
        await new Promise<void>((resolve) => relay.close(() => resolve()));
        await store.drop();
      }
    });
  });
}

interface RpcCall { jsonrpc: string; id: number; method: string; params: unknown[] }
