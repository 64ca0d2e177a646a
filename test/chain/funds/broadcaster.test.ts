/**
 * The custody broadcaster survives a crash: a transaction signed and persisted but never sent is
 * sent exactly once after a restart; one sent but lost from the node's pool is re-sent with the
 * same bytes (same hash) after a restart; one whose nonce was taken by another transaction ends
 * UNRESOLVED, stays locked, and the operator resolves it. The node is stopped and restarted on the
 * same store (a PGlite directory, or a PostgreSQL database) between the steps.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { parseUnits, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { RfqClient } from '../../../src/client/rfq-client.ts';
import { connectSigner } from '../../../src/chain/clients.ts';
import { CustodyBroadcaster } from '../../../src/chain/custody/custody-broadcaster.ts';
import { backends, createTestDatabase, type Backend, type TestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { balanceOf, depositOnChain, requestWithdrawal, rpc, settledInvariants, waitFor, wallet, withdrawal } from './helpers.ts';

const USDC = (n: string) => parseUnits(n, 6);
const NO_BROADCASTER = new Set(['auctions', 'settlement', 'dispatch']);

async function durableDatabase(backend: Backend): Promise<TestDatabase> {
  if (backend === 'postgres') return createTestDatabase(backend);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'rfq-funds-'));
  return { location: { kind: 'pglite', dataDir }, drop: () => rm(dataDir, { recursive: true, force: true }) };
}

for (const backend of backends()) {
  describe(`custody broadcaster across restarts (${backend})`, () => {
    let chain: TestChain;
    let database: TestDatabase;
    let h: Harness | null = null;
    const start = async (workers?: Set<string>) => {
      h = await startHarness(backend, { database, chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, ...(workers ? { workers } : {}) });
      return h;
    };
    const stop = async () => {
      await h?.close();
      h = null;
    };
    /** A broadcaster driven by hand, phase by phase, on the running node's store. */
    const manual = (node: Harness) => new CustodyBroadcaster({ deps: node.node.context.service, chain: node.node.context.chain!, logger: pino({ level: 'silent' }) });
    const transferRow = (node: Harness, withdrawalId: string) =>
      node.node.store.db.selectFrom('custody_transfers').selectAll().where('owner_id', '=', withdrawalId).executeTakeFirstOrThrow();
    /** The same wallet signed in again on the restarted node (a new port). */
    const again = async (node: Harness, account: PrivateKeyAccount) => {
      const client = new RfqClient(node.url);
      await client.signIn(account);
      return client;
    };
    const nonceCount = async () => Number(await rpc<string>(chain, 'eth_getTransactionCount', [chain.custody, 'latest']));

    /** A user with `amount` USDC withdrawn and approved, on a node without a broadcaster. */
    async function approvedWithdrawal(node: Harness, amount: string) {
      const user = await wallet(node, chain);
      await depositOnChain(chain, user.account, 'USDC', USDC(amount));
      await waitFor('credited', () => balanceOf(user.client, 'USDC'), (b) => b?.total === amount);
      const { withdrawalId } = await requestWithdrawal(user.client, { token: 'USDC', amount });
      await node.admin.call('POST', `/withdrawals/${withdrawalId}/approve`);
      return { user, withdrawalId };
    }

    before(async () => {
      chain = await startTestChain();
      database = await durableDatabase(backend);
    });
    after(async () => {
      await stop();
      await database?.drop();
      await chain?.stop();
    });

    it('crash between sign+persist and send: after a restart it is sent exactly once', async () => {
      const node = await start(NO_BROADCASTER);
      const { user, withdrawalId } = await approvedWithdrawal(node, '30');
      assert.equal(await manual(node).signQueued(), 1);
      const signed = await transferRow(node, withdrawalId);
      assert.equal(signed.status, 'SIGNED');
      assert.equal((await withdrawal(user.client, withdrawalId)).status, 'PROCESSING');
      assert.equal((await withdrawal(user.client, withdrawalId)).txHash, signed.tx_hash);
      assert.equal(await rpc(chain, 'eth_getTransactionByHash', [signed.tx_hash]), null);
      const noncesBefore = await nonceCount();
      await stop(); // the crash: nothing was sent

      const restarted = await start();
      const client = await again(restarted, user.account);
      const done = await waitFor('COMPLETED', () => withdrawal(client, withdrawalId), (w) => w.status === 'COMPLETED');
      assert.equal(done.txHash, signed.tx_hash);
      assert.equal(await nonceCount(), noncesBefore + 1);
      assert.equal(await chain.balanceOf('USDC', user.account.address), USDC('30'));
      assert.equal((await transferRow(restarted, withdrawalId)).raw_tx, signed.raw_tx);
      await settledInvariants(restarted, chain);
      await stop();
    });

    it('a sent transaction lost from the pool is re-sent after a restart with the same hash', async () => {
      const node = await start(NO_BROADCASTER);
      const { user, withdrawalId } = await approvedWithdrawal(node, '12');
      const broadcaster = manual(node);
      await broadcaster.signQueued();
      await rpc(chain, 'evm_setIntervalMining', [0]);
      await rpc(chain, 'evm_setAutomine', [false]);
      try {
        assert.equal(await broadcaster.sendSigned(), 1);
        const sent = await transferRow(node, withdrawalId);
        assert.equal(sent.status, 'SENT');
        const pooled = await rpc<{ hash: Hex; blockNumber: Hex | null }>(chain, 'eth_getTransactionByHash', [sent.tx_hash]);
        assert.equal(pooled.blockNumber, null);
        await stop();
        await rpc(chain, 'anvil_dropAllTransactions');
        assert.equal(await rpc(chain, 'eth_getTransactionByHash', [sent.tx_hash]), null);

        await start();
        const resent = await waitFor('re-sent', () => rpc<{ hash: Hex } | null>(chain, 'eth_getTransactionByHash', [sent.tx_hash]), (t) => t !== null);
        assert.equal(resent!.hash, sent.tx_hash);
      } finally {
        await rpc(chain, 'evm_setAutomine', [true]);
        await rpc(chain, 'evm_setIntervalMining', [1]);
      }
      const client = await again(h!, user.account);
      const done = await waitFor('COMPLETED', () => withdrawal(client, withdrawalId), (w) => w.status === 'COMPLETED');
      assert.equal(done.txHash, (await transferRow(h!, withdrawalId)).tx_hash);
      assert.equal(await chain.balanceOf('USDC', user.account.address), USDC('12'));
      assert.ok(done.txHash);
      await settledInvariants(h!, chain);
      await stop();
    });

    it('a nonce taken by another transaction: UNRESOLVED, still locked, until the operator resolves it', async () => {
      const node = await start(NO_BROADCASTER);
      const { user, withdrawalId } = await approvedWithdrawal(node, '8');
      const broadcaster = manual(node);
      await broadcaster.signQueued();
      const signed = await transferRow(node, withdrawalId);
      // Something else signs with custody's key at that nonce first.
      const custody = await connectSigner(chain.rpcUrl, chain.stack.settings.custodyKey);
      const other = await custody.walletClient.sendTransaction({ to: custody.account.address, value: 0n, nonce: signed.nonce! });
      await custody.publicClient.waitForTransactionReceipt({ hash: other });
      await broadcaster.sendSigned();
      assert.equal(await broadcaster.confirmSent(), 1);
      const lost = await withdrawal(user.client, withdrawalId);
      assert.equal(lost.status, 'UNRESOLVED');
      assert.match(lost.failureReason ?? '', /nonce/);
      assert.deepEqual(await balanceOf(user.client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '0', locked: '8', total: '8' });
      await settledInvariants(node, chain);
      const resolved = await node.admin.call<{ status: string }>('POST', `/withdrawals/${withdrawalId}/resolve`, { outcome: 'FAILED' });
      assert.equal(resolved.status, 'FAILED');
      assert.deepEqual(await balanceOf(user.client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '8', locked: '0', total: '8' });
      assert.equal(await chain.balanceOf('USDC', user.account.address), 0n);
      await settledInvariants(node, chain);
      await stop();
    });
  });
}
