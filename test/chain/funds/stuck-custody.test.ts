/**
 * A custody transaction stuck by a low fee is never paid twice. anvil keeps it
 * unminable by raising its base fee above the transaction's max fee:
 * - the broadcaster replaces it at the same nonce with a higher fee, never above the operator's
 *   cap; the replacement is mined, the withdrawal completes once and the user is paid once, even
 *   after the stuck withdrawal was escalated to UNRESOLVED (the operator's resolve is refused while
 *   the original can still be mined);
 * - the operator cancels one: the zero-value replacement consumes the nonce, resolve FAILED is
 *   then allowed, the user is paid zero times and gets the funds back, and a later withdrawal
 *   queued behind the stuck nonce completes.
 * The original stays stuck by block count, not by wall time: interval mining is off from the fee
 * spike until its replacement (bump or cancel) is in the pool, so a slow run cannot let the base
 * fee decay (12.5 % per empty block, about 30 blocks back to the original's fee) and the original
 * be mined first.
 */
import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { parseGwei, parseTransaction, parseUnits, type Hex } from 'viem';
import { ApiError } from '../../../src/client/http.ts';
import { CustodyBroadcaster, type BroadcasterOptions } from '../../../src/chain/custody/custody-broadcaster.ts';
import { backends, createTestDatabase, type TestDatabase } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import { startTestChain, type TestChain } from '../../helpers/chain.ts';
import { balanceOf, depositOnChain, requestWithdrawal, rpc, settledInvariants, waitFor, wallet, withdrawal } from './helpers.ts';

const USDC = (n: string) => parseUnits(n, 6);
const NO_BROADCASTER = new Set(['auctions', 'settlement', 'dispatch']);
/** Far above anything the original transaction offered (anvil's estimate is about 2 gwei). */
const SPIKED_BASE_FEE = parseGwei('100');

interface TransferView {
  transferId: string;
  status: string;
  nonce: number | null;
  txHash: string | null;
  attempts: Array<{ attempt: number; kind: string; txHash: string }>;
  lastError: string | null;
  cancelRequestedAt: number | null;
  escalatedAt: number | null;
}

for (const backend of backends()) {
  describe(`stuck custody transactions (${backend})`, () => {
    let chain: TestChain;
    let database: TestDatabase;
    let h: Harness;

    const broadcaster = (options: Partial<BroadcasterOptions>) =>
      new CustodyBroadcaster({ deps: h.node.context.service, chain: h.node.context.chain!, logger: pino({ level: 'silent' }), ...options });
    const transferOf = async (withdrawalId: string) => {
      const page = await h.admin.call<{ items: TransferView[] }>('GET', '/custody/transfers', undefined, { purpose: 'withdrawal' });
      const id = (await h.node.store.db.selectFrom('custody_transfers').select('id').where('owner_id', '=', withdrawalId).executeTakeFirstOrThrow()).id;
      const view = page.items.find((t) => t.transferId === id);
      assert.ok(view, `transfer of ${withdrawalId} listed`);
      return view;
    };
    const nonceCount = async () => Number(await rpc<string>(chain, 'eth_getTransactionCount', [chain.custody, 'latest']));
    const refusal = async (call: Promise<unknown>): Promise<ApiError> => {
      try {
        await call;
      } catch (error) {
        assert.ok(error instanceof ApiError, String(error));
        return error;
      }
      assert.fail('expected a refusal');
    };

    async function creditedUser(amount: string) {
      const user = await wallet(h, chain);
      await depositOnChain(chain, user.account, 'USDC', USDC(amount));
      await waitFor('credited', () => balanceOf(user.client, 'USDC'), (b) => b?.total === amount);
      return user;
    }
    async function approve(user: Awaited<ReturnType<typeof creditedUser>>, amount: string) {
      const { withdrawalId } = await requestWithdrawal(user.client, { token: 'USDC', amount });
      await h.admin.call('POST', `/withdrawals/${withdrawalId}/approve`);
      return { user, withdrawalId };
    }
    const approvedWithdrawal = async (amount: string) => approve(await creditedUser(amount), amount);
    const resumeIntervalMining = () => rpc(chain, 'evm_setIntervalMining', [1]);

    /**
     * Signs and sends the queued withdrawal while nothing is mined, then spikes the base fee and
     * mines an empty block: the transaction sits in the pool, unminable. Interval mining stays off
     * (blocks come only from transactions sent, automine, and the test's own `evm_mine`) until the
     * caller has its replacement in the pool: on a slow run, wall-clock blocks would let the base
     * fee decay back to the original's fee and the original be mined first.
     */
    async function sendStuck(b: CustodyBroadcaster, withdrawalId: string): Promise<TransferView> {
      await rpc(chain, 'evm_setIntervalMining', [0]);
      await rpc(chain, 'evm_setAutomine', [false]);
      try {
        assert.equal(await b.signQueued(), 1);
        assert.equal(await b.sendSigned(), 1);
        await rpc(chain, 'anvil_setNextBlockBaseFeePerGas', [`0x${SPIKED_BASE_FEE.toString(16)}`]);
        await rpc(chain, 'evm_mine');
      } finally {
        await rpc(chain, 'evm_setAutomine', [true]);
      }
      const sent = await transferOf(withdrawalId);
      // Mining goes on: three more blocks, still without it.
      for (let i = 0; i < 3; i++) await rpc(chain, 'evm_mine');
      assert.equal(await rpc(chain, 'eth_getTransactionReceipt', [sent.txHash]), null, 'the original is stuck');
      assert.equal(await nonceCount(), sent.nonce, 'its nonce is unused');
      return sent;
    }

    before(async () => {
      chain = await startTestChain();
      database = await createTestDatabase(backend);
      h = await startHarness(backend, { database, chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, workers: NO_BROADCASTER });
    });
    // A failed test must not leave the next one without blocks.
    afterEach(async () => {
      await resumeIntervalMining();
    });
    after(async () => {
      await h?.close();
      await database?.drop();
      await chain?.stop();
    });

    it('bumped under the cap, mined once; an escalated one completes when its replacement is mined', async () => {
      const { user, withdrawalId } = await approvedWithdrawal('40');
      // Escalates at once; no bump yet.
      const waiting = broadcaster({ maxSendAttempts: 1, maxPendingMs: 0, bumpAfterMs: 3_600_000 });
      const stuck = await sendStuck(waiting, withdrawalId);
      await waiting.confirmSent();
      const escalated = await withdrawal(user.client, withdrawalId);
      assert.equal(escalated.status, 'UNRESOLVED');
      assert.match(escalated.failureReason ?? '', /not mined/);
      assert.ok((await transferOf(withdrawalId)).escalatedAt);
      for (const outcome of ['FAILED', 'COMPLETED']) {
        const refused = await refusal(h.admin.call('POST', `/withdrawals/${withdrawalId}/resolve`, { outcome }));
        assert.equal(refused.status, 409);
        assert.equal(refused.code, 'CUSTODY_TX_MINEABLE');
        assert.deepEqual(refused.details?.['txHashes'], [stuck.txHash]);
      }
      assert.equal((await withdrawal(user.client, withdrawalId)).status, 'UNRESOLVED');

      // A cap below what the chain needs: one replacement at the cap, then none, the reason recorded.
      const lowCap = parseGwei('50');
      const capped = broadcaster({ bumpAfterMs: 0, maxFeePerGasWei: lowCap });
      assert.equal(await capped.replaceStuck(), 1);
      assert.equal(await capped.replaceStuck(), 0);
      const atCap = await transferOf(withdrawalId);
      assert.equal(atCap.attempts.length, 2);
      const atCapRaw = await h.node.store.db.selectFrom('custody_tx_attempts').select('raw_tx').where('tx_hash', '=', atCap.attempts[1]!.txHash).executeTakeFirstOrThrow();
      assert.equal(parseTransaction(atCapRaw.raw_tx as Hex).maxFeePerGas, lowCap);
      assert.match(atCap.lastError ?? '', /above the cap/);

      const cap = parseGwei('1000');
      const bumping = broadcaster({ bumpAfterMs: 0, maxFeePerGasWei: cap });
      // The replacement signed under this cap is sent: it takes the original's place in the pool.
      await bumping.tick();
      assert.equal((await transferOf(withdrawalId)).attempts.length, 3);
      await resumeIntervalMining();
      const done = await waitFor('COMPLETED', async () => {
        await bumping.tick();
        return withdrawal(user.client, withdrawalId);
      }, (w) => w.status === 'COMPLETED');
      const ended = await transferOf(withdrawalId);
      assert.equal(ended.status, 'CONFIRMED');
      assert.ok(ended.attempts.length >= 2, 'replaced at least once');
      assert.equal(done.txHash, ended.txHash);
      assert.notEqual(done.txHash, stuck.txHash, 'a replacement was mined, not the original');
      assert.equal(await rpc(chain, 'eth_getTransactionReceipt', [stuck.txHash]), null);
      for (const attempt of ended.attempts) {
        const tx = await h.node.store.db.selectFrom('custody_tx_attempts').select('raw_tx').where('tx_hash', '=', attempt.txHash).executeTakeFirstOrThrow();
        const parsed = parseTransaction(tx.raw_tx as Hex);
        assert.equal(parsed.nonce, stuck.nonce, 'every attempt at the same nonce');
        assert.ok(parsed.maxFeePerGas! <= cap, 'never above the cap');
      }
      assert.equal(await nonceCount(), stuck.nonce! + 1);
      assert.equal(await chain.balanceOf('USDC', user.account.address), USDC('40'), 'paid exactly once');
      assert.deepEqual(await balanceOf(user.client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '0', locked: '0', total: '0' });
      await settledInvariants(h, chain);
    });

    it('cancelled: resolve FAILED allowed once the cancel used the nonce, paid zero times; a later withdrawal is not blocked', async () => {
      const first = await approvedWithdrawal('25');
      // Credited now: crediting needs blocks, which must not come from the clock while it is stuck.
      const secondUser = await creditedUser('7');
      const waiting = broadcaster({ maxSendAttempts: 1, maxPendingMs: 0, bumpAfterMs: 3_600_000 });
      const stuck = await sendStuck(waiting, first.withdrawalId);
      await waiting.confirmSent();
      assert.equal((await withdrawal(first.user.client, first.withdrawalId)).status, 'UNRESOLVED');
      const refused = await refusal(h.admin.call('POST', `/withdrawals/${first.withdrawalId}/resolve`, { outcome: 'FAILED' }));
      assert.equal(refused.code, 'CUSTODY_TX_MINEABLE');

      // A second withdrawal signs at the next nonce, so it waits behind the stuck one.
      const second = await approve(secondUser, '7');
      assert.equal(await waiting.signQueued(), 1);
      await waiting.sendSigned();
      const behind = await transferOf(second.withdrawalId);
      assert.equal(behind.nonce, stuck.nonce! + 1);

      const cancel = await h.admin.call<TransferView>('POST', `/custody/transfers/${stuck.transferId}/cancel`);
      assert.ok(cancel.cancelRequestedAt);
      assert.equal((await h.admin.call<TransferView>('POST', `/custody/transfers/${stuck.transferId}/cancel`)).cancelRequestedAt, cancel.cancelRequestedAt, 'asking twice changes nothing');

      const running = broadcaster({ bumpAfterMs: 3_600_000, maxFeePerGasWei: parseGwei('1000') });
      // The cancel is signed and sent: it takes the original's place in the pool.
      await running.tick();
      assert.deepEqual((await transferOf(first.withdrawalId)).attempts.map((a) => a.kind), ['original', 'cancel']);
      await resumeIntervalMining();
      await waitFor('cancel mined and the later withdrawal completed', async () => {
        await running.tick();
        return Promise.all([transferOf(first.withdrawalId), withdrawal(second.user.client, second.withdrawalId)]);
      }, ([t, w]) => t.status === 'CANCELLED' && w.status === 'COMPLETED');
      const cancelled = await transferOf(first.withdrawalId);
      assert.deepEqual(cancelled.attempts.map((a) => a.kind), ['original', 'cancel']);
      assert.equal(cancelled.txHash, cancelled.attempts[1]!.txHash);
      assert.equal(await rpc(chain, 'eth_getTransactionReceipt', [stuck.txHash]), null, 'the original can never be mined now');
      assert.equal(await chain.balanceOf('USDC', second.user.account.address), USDC('7'));

      const notCancellable = await refusal(h.admin.call('POST', `/custody/transfers/${stuck.transferId}/cancel`));
      assert.equal(notCancellable.code, 'CUSTODY_TRANSFER_NOT_CANCELLABLE');
      const resolved = await h.admin.call<{ status: string }>('POST', `/withdrawals/${first.withdrawalId}/resolve`, { outcome: 'FAILED' });
      assert.equal(resolved.status, 'FAILED');
      assert.equal(await chain.balanceOf('USDC', first.user.account.address), 0n, 'paid zero times');
      assert.deepEqual(await balanceOf(first.user.client, 'USDC'), { token: 'USDC', rail: 'EVM', available: '25', locked: '0', total: '25' });
      assert.equal((await transferOf(first.withdrawalId)).status, 'CANCELLED');
      await settledInvariants(h, chain);
    });
  });
}
