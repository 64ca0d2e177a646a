/**
 * The chain follower on a real devnet: the node's follower advances its persisted cursor, a
 * maker's spender is checked against the wrapper factory, and two followers sharing one cursor
 * hand every log to their handlers exactly once between them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { pad, parseUnits, type Hex } from 'viem';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { startTestChain, testAccount, type TestChain } from '../../helpers/chain.ts';
import { ChainWatcher, type ChainLogHandler, type ObservedLog } from '../../../src/chain/watcher/chain-watcher.ts';
import { readCursor } from '../../../src/store/chain-cursor.ts';
import { waitFor } from '../../helpers/eventually.ts';

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef' as Hex;

for (const backend of backends()) {
  describe(`chain follower (${backend})`, () => {
    let chain: TestChain;
    let h: Harness;
    before(async () => {
      chain = await startTestChain();
      h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses });
    });
    after(async () => {
      await h?.close();
      await chain?.stop();
    });

    it('advances its persisted cursor to the confirmed head', async () => {
      const head = await fetchBlockNumber(chain.rpcUrl);
      const cursor = await waitFor(async () => {
        const read = await readCursor(h.node.store.db, 'main');
        return read && read.blockNumber >= head ? read : null;
      }, 'the cursor reaches the head', { timeoutMs: 10_000, pollMs: 100 });
      assert.match(cursor.blockHash, /^0x[0-9a-f]{64}$/);
      assert.ok(cursor.blockTimestampSecs > 0);
    });

    it('accepts only the factory wrapper of the maker as its Permit2 spender', async () => {
      const maker = testAccount();
      const stranger = testAccount();
      const strangersWrapper = await chain.wrapperFor(stranger.address);
      const factory = chain.stack.settings.wrapperFactoryAddress;
      const none = await rejects(h.admin.putMaker(maker.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['permit2'], spender: strangersWrapper }), 400, 'INVALID_REQUEST');
      // The refusal says what to do next: none deployed yet, so deploy(maker) on this factory.
      assert.deepEqual({ ...none.details, errors: undefined }, { errors: undefined, expected: null, deployed: false, factory });
      assert.match(none.message, new RegExp(`deploy\\(${maker.address}\\) on the factory`));
      assert.equal((none.details!.errors as Array<{ reason: string }>)[0]!.reason, 'notFactoryWrapper');
      const wrapper = await chain.wrapperFor(maker.address);
      const other = await rejects(h.admin.putMaker(maker.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['permit2'], spender: strangersWrapper }), 400, 'INVALID_REQUEST');
      assert.deepEqual({ ...other.details, errors: undefined }, { errors: undefined, expected: wrapper, deployed: true, factory });
      const registered = await h.admin.putMaker(maker.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['permit2'], spender: wrapper });
      assert.equal(registered.spender, wrapper);
    });

    it('two followers sharing a cursor see each log exactly once between them', async () => {
      const seen: ObservedLog[] = [];
      const recipient = testAccount().address;
      const handler: ChainLogHandler = {
        name: 'record',
        filters: () => [{ address: [chain.token('USDC')], topic0: [TRANSFER], topics: [null, [pad(recipient).toLowerCase() as Hex]] }],
        async handle(_tx, step) {
          seen.push(...step.logs);
        },
      };
      const context = h.node.context.chain!;
      const logger = pino({ level: 'silent' });
      const followers = [0, 1].map(() => new ChainWatcher({ db: h.node.store.db, chain: context, handlers: [handler], logger, name: 'test-shared', maxBlocksPerStep: 1 }));
      for (let i = 0; i < 4; i++) await chain.mint('USDC', recipient, parseUnits(String(i + 1), 6));
      const head = await fetchBlockNumber(chain.rpcUrl);
      // Both step in parallel until the shared cursor reaches the head.
      for (let round = 0; round < 500; round++) {
        await Promise.all(followers.map((f) => f.step()));
        const cursor = await readCursor(h.node.store.db, 'test-shared');
        if (cursor && cursor.blockNumber >= head) break;
      }
      const amounts = seen.map((l) => BigInt(l.data)).sort((a, b) => (a < b ? -1 : 1));
      assert.deepEqual(amounts, [1n, 2n, 3n, 4n].map((n) => n * 1_000_000n));
      for (const log of seen) assert.ok(log.blockTimestampSecs > 0);
    });

    it('reports a listed token address that is no ERC-20 as an invariant violation, not an error', async () => {
      await h.admin.putToken('NOPE', { decimals: 6, address: chain.stack.settings.wrapperFactoryAddress });
      const result = await h.admin.invariants();
      assert.equal(result.ok, false);
      const unreadable = result.violations.filter((v) => v.check === 'custodyBalanceUnreadable');
      assert.deepEqual(unreadable.map((v) => (v.detail as { token: string }).token), ['NOPE']);
      await h.admin.putToken('NOPE', { decimals: 6 });
      assert.equal((await h.admin.invariants()).ok, true);
    });
  });
}

async function fetchBlockNumber(rpcUrl: string): Promise<number> {
  const res = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) });
  return Number(((await res.json()) as { result: string }).result);
}
