/**
 * The operator CLI (`npm run admin -- ...`, src/runtime/admin-cli.ts) run as a child process
 * against a harness node: JSON on stdout, `error: CODE: message` on stderr, and exit codes
 * 0 (ok), 1 (refused or failed call, invariant violations) and 2 (usage).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { sql } from 'kysely';
import { backends } from '../helpers/backends.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../helpers/harness.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NODE = path.join(ROOT, 'node_modules/.bin/node');
const CLI = path.join(ROOT, 'src/runtime/admin-cli.ts');

interface Run { code: number | null; stdout: string; stderr: string }

let scratch: string;

/** Runs the CLI with a clean environment (nothing inherited that could name a URL or token). */
function cli(args: string[], env: Record<string, string> = {}, cwd = scratch): Promise<Run> {
  return new Promise((resolve) => {
    execFile(NODE, [CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
    });
  });
}

function ok(run: Run): any {
  assert.equal(run.code, 0, `exit 0 expected, got ${run.code}\nstderr: ${run.stderr}`);
  assert.equal(run.stderr, '');
  return JSON.parse(run.stdout);
}

function failed(run: Run, code: number, errorCode: string): string {
  assert.equal(run.code, code, `exit ${code} expected, got ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  const first = run.stderr.split('\n')[0]!;
  assert.match(first, new RegExp(`^error: ${errorCode}: \\S`), run.stderr);
  return run.stderr;
}

for (const backend of backends()) {
  describe(`admin CLI [${backend}]`, () => {
    let h: Harness;
    let auth: string[];
    before(async () => {
      h = await startHarness(backend, { logLevel: 'silent' });
      scratch = await mkdtemp(path.join(tmpdir(), 'rfq-cli-'));
      auth = ['--url', h.url, '--token', ADMIN_TOKEN];
    });
    after(async () => {
      await h.close();
      await rm(scratch, { recursive: true, force: true });
    });

    it('--help prints usage and exits 0; no or unknown command is a usage error (exit 2)', async () => {
      const help = await cli(['--help']);
      assert.equal(help.code, 0);
      for (const command of ['token put', 'instrument put', 'maker put', 'maker list', 'balance adjust', 'invariants', 'faucet', 'settings get', 'settings set', 'withdrawals list', 'withdrawals approve', 'withdrawals reject', 'withdrawals resolve', 'deposits unattributed', 'anomalies', 'anomalies resolve', 'anomalies replay']) {
        assert.ok(help.stdout.includes(command), `usage mentions ${command}`);
      }
      assert.equal((await cli(['maker', 'put', '--help'])).code, 0);
      failed(await cli([]), 2, 'USAGE');
      failed(await cli(['frobnicate']), 2, 'USAGE');
      failed(await cli(['token', 'delete', 'USDC']), 2, 'USAGE');
      failed(await cli(['token', 'put', 'USDC', '--bogus', '1']), 2, 'USAGE');
      assert.match(failed(await cli(['token', 'put', 'USDC', '--fee', '1', '--decimals', '6']), 2, 'USAGE'), /--fee does not apply to "token put"/);
      assert.match(failed(await cli(['token', 'put', 'USDC']), 2, 'USAGE'), /--decimals is required/);
      assert.match(failed(await cli(['token', 'put', 'USDC', '--decimals', 'six']), 2, 'USAGE'), /integer/);
      failed(await cli(['maker', 'list', 'extra']), 2, 'USAGE');
      failed(await cli(['settings', 'set', 'maxWindowMs']), 2, 'USAGE');
      failed(await cli(['settings', 'set', 'maxWindowMs=soon']), 2, 'USAGE');
      failed(await cli(['balance', 'adjust', '0x00', 'USDC', '5', '--memo', 'm', '--rail', 'CEX']), 2, 'USAGE');
    });

    it('finds the server and token from flags, RFQ_URL/RFQ_ADMIN_TOKEN, or the data directory file', async () => {
      const byFlags = ok(await cli([...auth, 'settings', 'get']));
      assert.equal(typeof byFlags.maxWindowMs, 'number');
      assert.deepEqual(ok(await cli(['settings', 'get'], { RFQ_URL: h.url, RFQ_ADMIN_TOKEN: ADMIN_TOKEN })), byFlags);

      const dataDir = path.join(scratch, 'data');
      await rm(dataDir, { recursive: true, force: true });
      await mkdir(dataDir);
      await writeFile(path.join(dataDir, 'admin-token'), `${ADMIN_TOKEN}\n`, { mode: 0o600 });
      assert.deepEqual(ok(await cli(['settings', 'get'], { RFQ_URL: h.url, RFQ_DATA_DIR: dataDir })), byFlags, 'RFQ_DATA_DIR/admin-token');
      // The default data directory is ./.rfq-data under the working directory.
      const cwd = await mkdtemp(path.join(tmpdir(), 'rfq-cli-cwd-'));
      try {
        await mkdir(path.join(cwd, '.rfq-data'));
        await writeFile(path.join(cwd, '.rfq-data', 'admin-token'), `${ADMIN_TOKEN}\n`);
        assert.deepEqual(ok(await cli(['--url', h.url, 'settings', 'get'], {}, cwd)), byFlags, './.rfq-data/admin-token');
      } finally {
        await rm(cwd, { recursive: true, force: true });
      }
      // --token wins over the environment.
      failed(await cli(['--token', 'wrong-token-wrong-token', 'settings', 'get'], { RFQ_URL: h.url, RFQ_ADMIN_TOKEN: ADMIN_TOKEN }), 1, 'ADMIN_UNAUTHORIZED');
    });

    it('fails clearly without a token, with a wrong token, or with no server', async () => {
      assert.match(failed(await cli(['--url', h.url, 'settings', 'get'], { RFQ_DATA_DIR: path.join(scratch, 'missing') }), 2, 'NO_TOKEN'), /RFQ_ADMIN_TOKEN/);
      const wrong = failed(await cli(['--url', h.url, '--token', 'not-the-operator-token', 'maker', 'list']), 1, 'ADMIN_UNAUTHORIZED');
      assert.match(wrong, /HTTP 401/);
      // A port nothing listens on (the harness is on an ephemeral one; close a socket to get a free port).
      const port = await new Promise<number>((resolve) => {
        const server = net.createServer().listen(0, '127.0.0.1', () => {
          const address = server.address() as { port: number };
          server.close(() => resolve(address.port));
        });
      });
      assert.match(failed(await cli(['--url', `http://127.0.0.1:${port}`, '--token', ADMIN_TOKEN, 'invariants']), 1, 'UNREACHABLE'), /ECONNREFUSED/);
      failed(await cli(['--url', 'not a url', '--token', ADMIN_TOKEN, 'invariants']), 2, 'USAGE');
    });

    it('token put and instrument put write reference data; refusals exit 1 with the code', async () => {
      assert.deepEqual(ok(await cli([...auth, 'token', 'put', 'SOL', '--decimals', '9'])), { symbol: 'SOL', decimals: 9, address: null });
      const address = '0x' + '12'.repeat(20);
      assert.equal(ok(await cli([...auth, 'token', 'put', 'SOL', '--decimals', '9', '--address', address])).address, address);
      assert.match(failed(await cli([...auth, 'token', 'put', 'SOL', '--decimals', '18']), 1, 'CONFLICT'), /decimals/);

      const spot = ok(await cli([...auth, 'instrument', 'put', 'SOL-USDC-SPOT', '--base', 'SOL', '--quote', 'USDC', '--type', 'SPOT', '--fee', '120', '--min-notional', '5']));
      assert.deepEqual(spot, { instrumentId: 'SOL-USDC-SPOT', base: 'SOL', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 120, minQuoteNotional: '5', enabled: true });
      // base, quote and type default to the parts of the id; a perp reaches the venue check (this node has none).
      assert.match(failed(await cli([...auth, 'instrument', 'put', 'SOL-USDC-PERP', '--fee', '30', '--min-notional', '10']), 1, 'NOT_AVAILABLE'), /perp venue/);
      assert.equal(ok(await cli([...auth, 'instrument', 'put', 'SOL-BTC-SPOT', '--fee', '30', '--disabled'])).enabled, false);
      assert.match(failed(await cli([...auth, 'instrument', 'put', 'DOGE-USDC-SPOT', '--fee', '1']), 1, 'TOKEN_NOT_FOUND'), /DOGE/);
      const mismatch = failed(await cli([...auth, 'instrument', 'put', 'SOL-USDC-SPOT', '--type', 'PERP', '--fee', '1']), 1, 'INVALID_REQUEST');
      assert.match(mismatch, /^ {2}instrumentId: /m, 'field errors are listed one per line');
      failed(await cli([...auth, 'instrument', 'put', 'SOL-USDC-SPOT', '--type', 'SWAP', '--fee', '1']), 2, 'USAGE');
      failed(await cli([...auth, 'instrument', 'put', 'SOL-USDC-SPOT']), 2, 'USAGE');

      const { client } = await h.newUser();
      const listed = (await client.instruments()).instruments.map((i) => i.instrumentId);
      assert.ok(listed.includes('SOL-USDC-SPOT') && !listed.includes('SOL-USDC-PERP') && !listed.includes('SOL-BTC-SPOT'));
    });

    it('maker put registers and maker list lists; the maker key is maker-scoped', async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      const maker = ok(await cli([...auth, 'maker', 'put', account.address, '--pairs', 'ETH-USDC, BTC-USDC', '--modes', 'permit2,promised']));
      assert.match(maker.makerId, /^[0-9a-f-]{36}$/);
      assert.deepEqual([maker.address, maker.active, maker.pairs, maker.settlementModes], [account.address, true, ['ETH-USDC', 'BTC-USDC'], ['permit2', 'promised']]);
      const client = new RfqClient(h.url);
      await client.signIn(account);
      assert.equal(client.login!.makerId, maker.makerId);

      const spender = privateKeyToAccount(generatePrivateKey()).address;
      const updated = ok(await cli([...auth, 'maker', 'put', account.address, '--pairs', 'ETH-USDC', '--modes', 'permit2', '--spender', spender, '--inactive']));
      assert.deepEqual([updated.makerId, updated.active, updated.spender], [maker.makerId, false, spender]);
      const list = ok(await cli([...auth, 'maker', 'list', '--compact']));
      assert.ok(Array.isArray(list.makers));
      assert.deepEqual(list.makers.find((m: { makerId: string }) => m.makerId === maker.makerId), updated);

      // A perp maker (docs/operator-guide.md, "Makers"): the pair's perp instruments, no spender.
      const perp = ok(await cli([...auth, 'maker', 'put', account.address, '--pairs', 'ETH-USDC', '--modes', 'perp']));
      assert.deepEqual([perp.makerId, perp.active, perp.settlementModes], [maker.makerId, true, ['perp']]);

      failed(await cli([...auth, 'maker', 'put', '0x1234', '--pairs', 'ETH-USDC', '--modes', 'permit2']), 1, 'INVALID_REQUEST');
      failed(await cli([...auth, 'maker', 'put', account.address, '--pairs', 'ETH-USDC', '--modes', 'telepathy']), 2, 'USAGE');
      failed(await cli([...auth, 'maker', 'put', account.address, '--pairs', 'ETH-USDC']), 2, 'USAGE');
    });

    it('balance adjust credits and debits (negative amounts as given), refusing overdrafts', async () => {
      const { client, account } = await h.newUser();
      const credit = ok(await cli([...auth, 'balance', 'adjust', account.address, 'USDC', '100.5', '--memo', 'wire 7']));
      assert.deepEqual(credit.balance, { token: 'USDC', rail: 'EVM', available: '100.5', locked: '0', total: '100.5' });
      const debit = ok(await cli([...auth, 'balance', 'adjust', account.address, 'USDC', '-0.5', '--memo', 'correction']));
      assert.equal(debit.balance.available, '100');
      const afterDashes = ok(await cli([...auth, 'balance', 'adjust', account.address, 'USDC', '--memo', 'again', '--', '-10']));
      assert.equal(afterDashes.balance.available, '90');
      const venue = ok(await cli([...auth, 'balance', 'adjust', account.address, 'USDC', '3', '--memo', 'venue', '--rail', 'VENUE']));
      assert.equal(venue.balance.rail, 'VENUE');

      assert.match(failed(await cli([...auth, 'balance', 'adjust', account.address, 'USDC', '-90.000001', '--memo', 'x']), 1, 'INSUFFICIENT_BALANCE'), /USDC/);
      failed(await cli([...auth, 'balance', 'adjust', account.address, 'USDC', '1.0000001', '--memo', 'x']), 1, 'AMOUNT_OVER_PRECISE');
      failed(await cli([...auth, 'balance', 'adjust', account.address, 'USDC', '1']), 2, 'USAGE');
      failed(await cli([...auth, 'balance', 'adjust', account.address, 'USDC']), 2, 'USAGE');

      assert.deepEqual((await client.balances()).balances.map((b) => [b.rail, b.available]), [['EVM', '90'], ['VENUE', '3']]);
      assert.deepEqual((await client.ledger()).entries.map((e) => e.delta).sort(), ['-0.5', '-10', '100.5', '3'].sort());
    });

    it('faucet passes the mint through; this node has no devnet, so it is refused', async () => {
      failed(await cli([...auth, 'faucet', '0x000000000000000000000000000000000000dEaD', 'USDC']), 2, 'USAGE');
      failed(await cli([...auth, 'faucet', '0x000000000000000000000000000000000000dEaD', 'USDC', '5']), 1, 'NOT_AVAILABLE');
    });

    it('withdrawals list|approve|reject|resolve, deposits unattributed and anomalies', async () => {
      // A listed token with an address (no chain on this node: approving only hands it to a broadcaster).
      await h.admin.putToken('WDT', { decimals: 6, address: privateKeyToAccount(generatePrivateKey()).address });
      const user = await h.newUser();
      await h.fund(user.account.address, { WDT: '100' });
      const first = await user.client.createWithdrawal({ token: 'WDT', amount: '10' });
      const second = await user.client.createWithdrawal({ token: 'WDT', amount: '20' });
      const pending = ok(await cli([...auth, 'withdrawals', 'list', '--status', 'PENDING']));
      assert.deepEqual(pending.items.map((w: { withdrawalId: string }) => w.withdrawalId).sort(), [first.withdrawalId, second.withdrawalId].sort());
      assert.equal(ok(await cli([...auth, 'withdrawals', 'approve', first.withdrawalId])).status, 'APPROVED');
      const rejected = ok(await cli([...auth, 'withdrawals', 'reject', second.withdrawalId, '--reason', 'address under review']));
      assert.deepEqual([rejected.status, rejected.failureReason], ['FAILED', 'address under review']);
      assert.match(failed(await cli([...auth, 'withdrawals', 'approve', second.withdrawalId]), 1, 'WITHDRAWAL_NOT_PENDING'), /HTTP 409/);
      failed(await cli([...auth, 'withdrawals', 'resolve', first.withdrawalId, '--outcome', 'FAILED']), 1, 'WITHDRAWAL_NOT_UNRESOLVED');
      failed(await cli([...auth, 'withdrawals', 'resolve', first.withdrawalId, '--outcome', 'MAYBE']), 2, 'USAGE');
      failed(await cli([...auth, 'withdrawals', 'list', '--status', 'DONE']), 2, 'USAGE');
      assert.deepEqual(ok(await cli([...auth, 'deposits', 'unattributed'])), { items: [], hasMore: false });
      assert.deepEqual(ok(await cli([...auth, 'anomalies'])), { anomalies: [] });
      const unknownLog = `0x${'ab'.repeat(32)}`;
      failed(await cli([...auth, 'anomalies', 'replay', unknownLog, '0']), 1, 'NOT_FOUND');
      failed(await cli([...auth, 'anomalies', 'resolve', unknownLog, '0', '--note', 'checked']), 1, 'NOT_FOUND');
      failed(await cli([...auth, 'anomalies', 'replay', unknownLog, 'first']), 2, 'USAGE');
      failed(await cli([...auth, 'anomalies', 'replay', unknownLog, '0', '--note', 'x']), 2, 'USAGE');
    });

    it('settings get and set', async () => {
      const initial = ok(await cli([...auth, 'settings', 'get']));
      const updated = ok(await cli([...auth, 'settings', 'set', 'maxWindowMs=15000', 'settlementHeadroomSecs=45']));
      assert.deepEqual(updated, { ...initial, maxWindowMs: 15_000, settlementHeadroomSecs: 45 });
      assert.deepEqual(ok(await cli([...auth, 'settings', 'get'])), updated);
      failed(await cli([...auth, 'settings', 'set', 'noSuchSetting=1']), 1, 'INVALID_REQUEST');
      assert.deepEqual(ok(await cli([...auth, 'settings', 'set', `maxWindowMs=${initial.maxWindowMs}`, `settlementHeadroomSecs=${initial.settlementHeadroomSecs}`])), initial);
    });

    it('prints pretty JSON by default and one line with --compact', async () => {
      const pretty = await cli([...auth, 'invariants']);
      assert.equal(pretty.stdout, `${JSON.stringify({ ok: true, violations: [] }, null, 2)}\n`);
      const compact = await cli([...auth, '--compact', 'invariants']);
      assert.equal(compact.stdout, '{"ok":true,"violations":[]}\n');
    });

    it('invariants exits 0 when they hold and 1 when one is violated', async () => {
      assert.deepEqual(ok(await cli([...auth, 'invariants'])), { ok: true, violations: [] });
      // Corrupt the ledger behind the service's back: a posting that leaves its movement unbalanced.
      const db = h.node.store.db;
      const movementId = '00000000-0000-4000-8000-000000000001';
      await sql`insert into ledger_movements (movement_id, kind, reference, memo, created_at) values (${movementId}, 'ADJUSTMENT', null, 'corrupt', 1)`.execute(db);
      await sql`insert into ledger_postings (posting_id, movement_id, book, account_id, token, rail, delta, source, created_at)
                values ('00000000-0000-4000-8000-000000000002', ${movementId}, 'adjustments', null, 'USDC', 'EVM', 1, 'ADJUSTMENT', 1)`.execute(db);
      const run = await cli([...auth, 'invariants']);
      assert.equal(run.code, 1, run.stderr);
      const result = JSON.parse(run.stdout);
      assert.equal(result.ok, false);
      assert.ok(result.violations.some((v: { check: string }) => v.check === 'movementBalances'));
      assert.match(run.stderr, /^error: INVARIANTS_VIOLATED: /);
    });
  });
}
