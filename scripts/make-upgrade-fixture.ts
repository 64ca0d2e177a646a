/**
 * Writes the upgrade test's fixture (test/store/upgrade.test.ts): a database built by the
 * migrations as they stood at an early commit of this repository, with a little data, dumped from
 * PostgreSQL as plain SQL (one `insert` a row) that both PostgreSQL and PGlite load.
 *
 * The commit's `src/` is taken with `git archive` into a temporary folder (its migrations run
 * with this checkout's node_modules), migrated into a fresh database of the server, filled with
 * `FIXTURE_DATA`, dumped with `pg_dump` to test/fixtures/upgrade/<commit>.sql, and dropped.
 * Usage: node scripts/make-upgrade-fixture.ts [--commit 6900028] [--db postgres://postgres@127.0.0.1:5432/test]
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Most of all a balance, a key, an RFQ and its quote: the rows later migrations alter or index. */
const FIXTURE_DATA = `
insert into accounts (id, address, created_at) values
  ('00000000-0000-4000-8000-000000000001', '0x00000000000000000000000000000000000000a1', 1000),
  ('00000000-0000-4000-8000-000000000002', '0x00000000000000000000000000000000000000b2', 1000);
insert into tokens (symbol, decimals, address, updated_at) values ('ETH', 18, null, 1000), ('USDC', 6, null, 1000);
insert into instruments (instrument_id, base, quote, type, taker_fee_tenth_bp, min_quote_notional, enabled, updated_at)
  values ('ETH-USDC-SPOT', 'ETH', 'USDC', 'SPOT', 25, null, true, 1000);
insert into makers (maker_id, account_id, active, pairs, settlement_modes, spender, adapter_signer, suspended_until, created_at, updated_at)
  values ('00000000-0000-4000-8000-0000000000c1', '00000000-0000-4000-8000-000000000002', true, '["ETH-USDC"]', '["promised"]', null, null, null, 1000, 1000);
insert into api_keys (access_key, account_id, secret_enc, maker_scoped, created_at, expires_at, revoked_at)
  values ('ak-fixture', '00000000-0000-4000-8000-000000000002', 'sealed', true, 1000, 9999999999999, null);
insert into balances (account_id, token, rail, available, locked) values
  ('00000000-0000-4000-8000-000000000001', 'USDC', 'custody', 123456789012345678901234567890, 0),
  ('00000000-0000-4000-8000-000000000002', 'ETH', 'custody', 5000000000000000000, 0);
insert into rfqs (id, account_id, instrument_id, side, base_qty, quote_limit, taker_fee_tenth_bp, auto_accept, status, created_at,
                  auction_ends_at, settlement_deadline_secs, request_fingerprint, updated_at)
  values ('rfq-fixture', '00000000-0000-4000-8000-000000000001', 'ETH-USDC-SPOT', 'BUY', 1000000000000000000, null, 25, false,
          'PENDING', 2000, 2500, 60, 'fp-fixture', 2000);
insert into quotes (id, rfq_id, maker_id, maker_account_id, version, status, maker_pays_token, maker_pays_amount, maker_receives_token,
                    maker_receives_amount, taker_fee, taker_total, received_at, settlement_mode, created_at, updated_at)
  values ('quote-fixture', 'rfq-fixture', '00000000-0000-4000-8000-0000000000c1', '00000000-0000-4000-8000-000000000002', 1, 'SUBMITTED',
          'ETH', 1000000000000000000, 'USDC', 3000000000, 750000, 3000750000, 2100, 'promised', 2100, 2100);
`;

const { values: args } = parseArgs({ options: { commit: { type: 'string', default: '6900028' }, db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' } } });
const commit = execFileSync('git', ['rev-parse', '--short=7', args.commit], { cwd: ROOT, encoding: 'utf8' }).trim();
const tree = mkdtempSync(path.join(tmpdir(), `rfq-fixture-${commit}-`));
const name = `rfq_fixture_${randomBytes(6).toString('hex')}`;
const admin = new pg.Client({ connectionString: args.db });
await admin.connect();
try {
  execFileSync('sh', ['-c', `git archive ${commit} src package.json | tar -x -C ${tree}`], { cwd: ROOT });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
  await admin.query(`create database ${name}`);
  const url = new URL(args.db);
  url.pathname = `/${name}`;
  const runner = path.join(tree, 'migrate-fixture.ts');
  writeFileSync(runner, `
    import { Kysely, PostgresDialect } from 'kysely';
    import pg from 'pg';
    import { migrateToLatest } from './src/store/migrate.ts';
    const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: ${JSON.stringify(url.toString())} }) }) });
    await migrateToLatest(db);
    await db.destroy();
  `);
  execFileSync(process.execPath, [runner], { cwd: tree, stdio: 'inherit' });
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  await client.query(FIXTURE_DATA);
  await client.end();
  const dump = execFileSync('pg_dump', ['--no-owner', '--no-privileges', '--inserts', '--dbname', url.toString()], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  // `\restrict` and `\unrestrict` are psql's commands, which a server (or PGlite) does not take.
  const statements = dump.split('\n').filter((line) => !/^\\(un)?restrict /.test(line)).join('\n');
  const out = path.join(ROOT, 'test/fixtures/upgrade', `${commit}.sql`);
  writeFileSync(out, `-- The migrations at ${commit} with scripts/make-upgrade-fixture.ts's data: node scripts/make-upgrade-fixture.ts --commit ${commit}\n${statements}`);
  console.log(`wrote ${path.relative(ROOT, out)}`);
} finally {
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
  rmSync(tree, { recursive: true, force: true });
}
