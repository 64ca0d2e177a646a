/**
 * The taker CLI's everyday funds and history commands, run as a child process
 * over loopback against a real node on an anvil devnet: `deposit` sends the ERC-20 from the
 * logged-in wallet to custody and follows it until credited, `withdraw` requests a payout that an
 * operator approves and follows it until the tokens are on-chain, `trades` lists the account's
 * RFQs newest first with their outcome. Plus the mistakes a user makes, each with its message.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { backends } from '../helpers/backends.ts';
import { exited, failed, json, runCli, type Run } from '../helpers/cli.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { startTestChain, type TestChain } from '../helpers/chain.ts';
import { eventually } from '../helpers/eventually.ts';

let scratch: string;

// The CLI sees only HTTP and the chain; the deposit and withdrawal paths it drives are tested on
// both stores in test/chain/funds. One store (PostgreSQL when there is one) keeps this file short.
for (const backend of backends().slice(-1)) {
  describe(`taker CLI trades, deposit, withdraw [${backend}]`, () => {
    let chain: TestChain;
    let h: Harness;
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    let as: string[];
    const cli = (args: string[], env: Record<string, string> = {}, timeoutMs?: number): Promise<Run> => runCli('src/runtime/rfq-cli.ts', [...as, ...args], scratch, env, timeoutMs);

    before(async () => {
      chain = await startTestChain();
      h = await startHarness(backend, { logLevel: 'silent', chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses });
      scratch = await mkdtemp(path.join(tmpdir(), 'rfq-cli-funds-'));
      as = ['--credentials', path.join(scratch, 'taker.json')];
      await chain.fundGas(account.address);
      await chain.mint('USDC', account.address, parseUnits('500', 6));
      exited(await cli(['--url', h.url, 'login', '--private-key', key]), 0);
    });
    after(async () => {
      await h?.close();
      await chain?.stop();
      if (scratch) await rm(scratch, { recursive: true, force: true });
    });

    it('deposit: sends the ERC-20 from the logged-in wallet to custody (on the chain the node publishes) and follows it until credited', async () => {
      const run = exited(await cli(['--json', 'deposit', '250.5', 'usdc', '--follow', '--timeout', '60s'], {}, 90_000), 0);
      const result = json(run);
      assert.equal(result.from, account.address, 'sent from the wallet the CLI logged in with');
      assert.equal(result.custodyAddress.toLowerCase(), chain.custody.toLowerCase());
      assert.deepEqual([result.deposit.status, result.deposit.token, result.deposit.amount, result.deposit.txHash], ['COMPLETED', 'USDC', '250.5', result.txHash]);
      assert.equal(await chain.balanceOf('USDC', account.address), parseUnits('249.5', 6), 'the tokens left the wallet');
      const balances = json(exited(await cli(['--json', 'balances']), 0));
      assert.equal(balances.balances.find((b: { token: string }) => b.token === 'USDC')?.available, '250.5');
    });

    it('deposit: says what to do when the key, the chain, the token or the amount is wrong', async () => {
      assert.match(failed(await cli(['deposit', '1', 'USDC', '--rpc-url', 'http://127.0.0.1:1']), 1, 'DEPOSIT_FAILED'), /cannot reach the chain at http:\/\/127\.0\.0\.1:1: .*--rpc-url or RFQ_RPC_URL/);
      assert.match(failed(await cli(['deposit', '1', 'DOGE'], { RFQ_RPC_URL: chain.rpcUrl }), 1, 'DEPOSIT_FAILED'), /unknown token DOGE: the service takes .*USDC/);
      assert.match(failed(await cli(['deposit', '1.0000001', 'USDC'], { RFQ_RPC_URL: chain.rpcUrl }), 1, 'DEPOSIT_FAILED'), /USDC has 6 decimals/);
      failed(await cli(['deposit', '1']), 2, 'USAGE');
      // Logged in with a key pair and no wallet key anywhere: nothing is sent.
      const pairFile = path.join(scratch, 'pair.json');
      const other = new RfqClient(h.url);
      const login = await other.signIn(privateKeyToAccount(generatePrivateKey()));
      exited(await runCli('src/runtime/rfq-cli.ts', ['--credentials', pairFile, '--url', h.url, 'login', '--access-key', login.accessKey, '--secret', login.secret], scratch), 0);
      assert.match(failed(await runCli('src/runtime/rfq-cli.ts', ['--credentials', pairFile, 'deposit', '1', 'USDC', '--rpc-url', chain.rpcUrl], scratch), 2, 'NO_WALLET_KEY'), /a deposit is signed with your wallet key/);
    });

    it('withdraw: requests the payout, and --follow waits through the operator approval until the tokens are on-chain', async () => {
      const following = cli(['--json', 'withdraw', '100.25', 'USDC', '--follow', '--timeout', '60s'], {}, 90_000);
      const pending = await eventually(() => h.admin.call<{ items: Array<{ withdrawalId: string; status: string; amount: string }> }>('GET', '/withdrawals', undefined, { status: 'PENDING' }), (p) => p.items.some((w) => w.amount === '100.25'), 30_000, 200);
      const requested = pending.items.find((w) => w.amount === '100.25');
      assert.ok(requested, 'the CLI asked for the withdrawal');
      await h.admin.call('POST', `/withdrawals/${requested.withdrawalId}/approve`);
      const done = json(exited(await following, 0));
      assert.deepEqual([done.withdrawalId, done.status, done.amount, done.token, done.toAddress], [requested.withdrawalId, 'COMPLETED', '100.25', 'USDC', account.address]);
      assert.equal(await chain.balanceOf('USDC', account.address), parseUnits('349.75', 6), 'the payout reached the wallet');
      // Without --follow: the request is answered at once, PENDING.
      const quick = json(exited(await cli(['--json', 'withdraw', '0.25', 'USDC']), 0));
      assert.equal(quick.status, 'PENDING');
      failed(await cli(['withdraw', '1000000', 'USDC']), 1, 'INSUFFICIENT_BALANCE');
    });

    it('trades: the account\'s RFQs newest first, each with its outcome', async () => {
      const taker = new RfqClient(h.url);
      await taker.signIn(account);
      const older = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '0.5', windowMs: 30_000 });
      await taker.cancelRfq(older.rfqId);
      const newer = await taker.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'SELL', baseQty: '0.01', windowMs: 30_000 });
      const listed = json(exited(await cli(['--json', 'trades']), 0));
      assert.deepEqual(listed.items.map((r: { id: string }) => r.id), [newer.rfqId, older.rfqId], 'newest first');
      const human = exited(await cli(['trades']), 0).stdout.split('\n');
      assert.match(human[0]!, /^TIME\s+RFQ\s+SIDE\s+SIZE\s+INSTRUMENT\s+STATUS\s+OUTCOME$/);
      // Still in its auction, or (on a slow machine) ended with no quote: the outcome says which.
      assert.match(human[1]!, new RegExp(`${newer.rfqId}\\s+SELL\\s+0\\.01\\s+BTC-USDC-SPOT\\s+(PENDING\\s+open|CANCELLED\\s+no quote accepted)$`));
      assert.match(human[2]!, new RegExp(`${older.rfqId}\\s+BUY\\s+0\\.5\\s+ETH-USDC-SPOT\\s+CANCELLED\\s+\\S`));
      const cancelled = json(exited(await cli(['--json', 'trades', '--status', 'cancelled', '--limit', '1']), 0));
      assert.deepEqual(cancelled.items.map((r: { id: string }) => r.id), [older.rfqId]);
      assert.match(failed(await cli(['trades', '--status', 'DONE']), 2, 'USAGE'), /--status must be one of PENDING, QUOTED, SETTLED, FAILED, CANCELLED/);
    });
  });
}
