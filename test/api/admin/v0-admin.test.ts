/**
 * The operator's `/v0` surface over HTTP against the venue simulator, on each store: every
 * account's v0 orders and withdrawals (newest first, by status and account, paged by cursor, bad
 * filters refused, the token required), the per-account fee rates (defaults, set, reported by
 * getFees, charged on the next fill, removed; unknown account and out-of-range rates refused), and
 * the same through `npm run admin -- v0 ...`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { backends } from '../../helpers/backends.ts';
import { ADMIN_TOKEN } from '../../helpers/harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { startV0Stack, type V0Stack } from '../../helpers/v0.ts';
import { AdminClient } from '../../../src/client/admin-client.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TERMINAL = ['filled', 'partially_filled', 'cancelled', 'expired', 'failed'];

interface Page { items: Array<Record<string, any>>; hasMore: boolean; nextCursor?: string | null }

function adminCli(url: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(path.join(ROOT, 'node_modules/.bin/node'), [path.join(ROOT, 'src/runtime/admin-cli.ts'), '--url', url, '--token', ADMIN_TOKEN, '--compact', ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

for (const backend of backends()) {
  describe(`admin /v0 views and fee rates [${backend}]`, { timeout: 600_000 }, () => {
    let stack: V0Stack;
    let admin: AdminClient;
    before(async () => {
      stack = await startV0Stack(backend, { logLevel: 'silent' });
      admin = stack.harness.admin;
    });
    after(async () => stack?.close());

    async function trader(usdc: string): Promise<{ account: PrivateKeyAccount; token: string }> {
      const account = privateKeyToAccount(generatePrivateKey());
      await stack.deposit(account, 'USDC', usdc);
      const token = await stack.login(account);
      await stack.waitFor(async () => (await stack.call('getBalances', {}, { token })).status === 200, 'deposit credited');
      return { account, token };
    }

    async function buyOnce(token: string, price = '41'): Promise<Record<string, any>> {
      const created = await stack.call('createOrder', { side: 'buy', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '1', price }, { token });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      return stack.waitFor(async () => {
        const page = await admin.v0Orders({ account: undefined });
        const mine = page.items.find((o) => o.clientOrderId === created.body.orderId);
        return mine && TERMINAL.includes(String(mine.status)) ? mine : null;
      }, 'order terminal');
    }

    it("lists every account's orders and withdrawals newest first, by status and account, paged; refuses bad filters", async () => {
      const alice = await trader('200');
      const bob = await trader('200');
      const filled = await buyOnce(alice.token);
      const expired = await buyOnce(bob.token, '30');
      assert.deepEqual([filled.status, expired.status], ['filled', 'expired']);
      assert.equal(filled.accountAddress, alice.account.address);
      assert.deepEqual({ side: filled.side, orderType: filled.orderType, timeInForce: filled.timeInForce, baseToken: filled.baseToken, quoteToken: filled.quoteToken, amount: filled.amount, filledAmount: filled.filledAmount, price: filled.price }, {
        side: 'buy', orderType: 'limit', timeInForce: 'Ioc', baseToken: 'HYPE', quoteToken: 'USDC', amount: '100000000', filledAmount: '100000000', price: '4100000000',
      });
      assert.match(String(filled.orderId), /^dord_/);
      assert.equal(typeof filled.venueOrderId, 'number');

      const all = await admin.v0Orders();
      assert.deepEqual(all.items.slice(0, 2).map((o) => o.clientOrderId), [expired.clientOrderId, filled.clientOrderId], 'newest first');
      assert.deepEqual((await admin.v0Orders({ account: alice.account.address.toLowerCase() })).items.map((o) => o.orderId), [filled.orderId], 'by account, any case');
      const byStatus = await admin.v0Orders({ status: 'expired' });
      assert.ok(byStatus.items.length >= 1 && byStatus.items.every((o) => o.status === 'expired'));
      const first = await admin.v0Orders({ limit: '1' });
      assert.equal(first.hasMore, true);
      const second = await admin.v0Orders({ limit: '1', cursor: first.nextCursor! });
      assert.equal(second.items[0]!.orderId, all.items[1]!.orderId, 'the cursor continues where the page ended');

      const withdrawal = await stack.call('initiateWithdrawal', { tokenSymbol: 'USDC', amount: '25' }, { token: alice.token, layout: 'wrapped' });
      assert.equal(withdrawal.status, 200, JSON.stringify(withdrawal.body));
      const completed = await stack.waitFor(async () => {
        const page = await admin.v0Withdrawals({ account: alice.account.address });
        return page.items[0]?.state === 'completed' ? page.items[0] : null;
      }, 'withdrawal completed', 30_000);
      assert.deepEqual({ id: completed.withdrawalId, token: completed.token, amount: completed.amount, to: completed.toAddress, error: completed.errorMessage }, {
        id: withdrawal.body.data.withdrawalId, token: 'USDC', amount: '25', to: alice.account.address, error: null,
      });
      assert.match(String(completed.txHash), /^0x[0-9a-f]{64}$/);
      assert.deepEqual((await admin.v0Withdrawals({ state: 'pending', account: alice.account.address })).items, []);
      assert.deepEqual((await admin.v0Withdrawals({ account: bob.account.address })).items, []);

      await rejects(admin.v0Orders({ status: 'done' }), 400, 'INVALID_REQUEST');
      await rejects(admin.v0Withdrawals({ state: 'open' }), 400, 'INVALID_REQUEST');
      await rejects(admin.v0Orders({ account: '0x1234' }), 400, 'INVALID_REQUEST');
      await rejects(admin.v0Orders({ limit: '101' }), 400, 'INVALID_REQUEST');
      await rejects(admin.v0Orders({ cursor: 'not-a-cursor' }), 400, 'INVALID_REQUEST');
      await rejects(new AdminClient(stack.harness.url, 'wrong-token-0123456789').v0Orders(), 401, 'ADMIN_UNAUTHORIZED');
      assert.deepEqual((await stack.invariants()).violations, []);
    });

    it('per-account fee rates: defaults, set (getFees reports them, the next fill pays them), removed; refusals', async () => {
      const carol = await trader('200');
      const address = carol.account.address;
      assert.deepEqual(await admin.v0FeeRates(address), { address, takerPpm: 700, makerPpm: 200, source: 'default' });
      assert.deepEqual(await admin.putV0FeeRates(address.toLowerCase(), { takerPpm: 1000, makerPpm: 300 }), { address, takerPpm: 1000, makerPpm: 300, source: 'account' });
      assert.deepEqual(await admin.v0FeeRates(address), { address, takerPpm: 1000, makerPpm: 300, source: 'account' });
      const fees = await stack.call('getFees', {}, { token: carol.token });
      assert.deepEqual([fees.body.fees.spot.takerRate, fees.body.fees.spot.makerRate], ['0.001', '0.0003']);
      // 1 HYPE bought: the fee is 1000 ppm of it (0.001 HYPE = 100000 x 10^-8), rounded down.
      await buyOnce(carol.token);
      const fill = await stack.harness.node.store.db.selectFrom('v0_fills').innerJoin('accounts', 'accounts.id', 'v0_fills.account_id').select(['v0_fills.fee', 'v0_fills.amount']).where('accounts.address', '=', address).executeTakeFirstOrThrow();
      assert.equal(fill.fee, (fill.amount * 1000n) / 1_000_000n);
      assert.deepEqual(await admin.clearV0FeeRates(address), { address, takerPpm: 700, makerPpm: 200, source: 'default' });
      assert.equal((await admin.v0FeeRates(address)).source, 'default');

      await rejects(admin.v0FeeRates(privateKeyToAccount(generatePrivateKey()).address), 404, 'NOT_FOUND');
      await rejects(admin.putV0FeeRates(address, { takerPpm: 100_001, makerPpm: 0 }), 400, 'INVALID_REQUEST');
      await rejects(admin.putV0FeeRates(address, { takerPpm: -1, makerPpm: 0 }), 400, 'INVALID_REQUEST');
      await rejects(admin.call('PUT', `/v0/fee-rates/${address}`, { takerPpm: 1 }), 400, 'INVALID_REQUEST');
      assert.deepEqual((await stack.invariants()).violations, []);
    });

    it('npm run admin -- v0 orders | withdrawals | fees', async () => {
      const dave = await trader('100');
      await buyOnce(dave.token);
      const orders = await adminCli(stack.harness.url, ['v0', 'orders', '--account', dave.account.address, '--status', 'filled']);
      assert.equal(orders.code, 0, orders.stderr);
      const page = JSON.parse(orders.stdout) as Page;
      assert.deepEqual(page.items.map((o) => [o.accountAddress, o.status]), [[dave.account.address, 'filled']]);
      const withdrawals = await adminCli(stack.harness.url, ['v0', 'withdrawals', '--account', dave.account.address]);
      assert.equal(withdrawals.code, 0, withdrawals.stderr);
      assert.deepEqual(JSON.parse(withdrawals.stdout), { items: [], hasMore: false });
      const set = await adminCli(stack.harness.url, ['v0', 'fees', dave.account.address, '--taker-ppm', '500', '--maker-ppm', '100']);
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual(JSON.parse(set.stdout), { address: dave.account.address, takerPpm: 500, makerPpm: 100, source: 'account' });
      const read = await adminCli(stack.harness.url, ['v0', 'fees', dave.account.address]);
      assert.equal(JSON.parse(read.stdout).takerPpm, 500);
      const cleared = await adminCli(stack.harness.url, ['v0', 'fees', dave.account.address, '--default']);
      assert.equal(JSON.parse(cleared.stdout).source, 'default');
      const usage = await adminCli(stack.harness.url, ['v0', 'fees', dave.account.address, '--taker-ppm', '5']);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /--taker-ppm and --maker-ppm go together/);
      const refused = await adminCli(stack.harness.url, ['v0', 'orders', '--status', 'done']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /^error: INVALID_REQUEST/);
    });
  });
}
