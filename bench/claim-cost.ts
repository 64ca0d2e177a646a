/**
 * What the quote write's per-item replay claim costs: `rfq_write_quotes` calls
 * `rfq_claim_timestamps` once per item of a group-committed batch. Measured inside PostgreSQL
 * (a DO block timed with clock_timestamp(), no client round trips) on a fresh bench database:
 * N single-pair calls against one call with N pairs, each in its own rolled-back transaction,
 * alternated, medians of `--rounds`. Usage: node bench/claim-cost.ts [--batch 50] [--rounds 20]
 */
import { parseArgs } from 'node:util';
import { createBenchDatabase } from './lib/database.ts';
import { openStore } from '../src/store/database.ts';
import { migrateToLatest } from '../src/store/migrate.ts';

const { values: args } = parseArgs({ options: { batch: { type: 'string', default: '50' }, rounds: { type: 'string', default: '20' }, db: { type: 'string' } } });
const batch = Number(args.batch);
const rounds = Number(args.rounds);
const db = await createBenchDatabase(args.db ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
try {
  const store = await openStore({ kind: 'postgres', url: db.url, poolSize: 1 });
  await migrateToLatest(store.db);
  await store.close();
  await db.pool.query('insert into accounts (id, address, created_at) values (\'00000000-0000-0000-0000-000000000001\', \'0x0000000000000000000000000000000000000001\', 1)');
  await db.pool.query(`insert into api_keys (access_key, account_id, secret_enc, maker_scoped, created_at, expires_at, revoked_at)
    select 'ak' || g, '00000000-0000-0000-0000-000000000001', 'x', true, 1, 1e15, null from generate_series(1, ${batch}) g`);
  // Server-side microseconds for one shape; every round claims fresh timestamps and rolls back.
  const time = async (shape: 'per item' | 'one call', base: number): Promise<number> => {
    const body = shape === 'per item'
      ? `for i in 1..${batch} loop perform * from rfq_claim_timestamps(array['ak' || i], array[${base}::int8 + i]); end loop;`
      : `perform * from rfq_claim_timestamps(array(select 'ak' || g from generate_series(1, ${batch}) g), array(select ${base}::int8 + g from generate_series(1, ${batch}) g));`;
    const client = await db.pool.connect();
    try {
      await client.query('begin');
      await client.query(`do $$ declare t0 timestamptz := clock_timestamp(); begin ${body} perform set_config('bench.us', (extract(epoch from clock_timestamp() - t0) * 1e6)::text, true); end $$`);
      const { rows } = await client.query<{ us: string }>('select current_setting(\'bench.us\') as us');
      await client.query('rollback');
      return Number(rows[0]!.us);
    } finally {
      client.release();
    }
  };
  const perItem: number[] = [];
  const oneCall: number[] = [];
  for (let r = 0; r < rounds; r++) {
    perItem.push(await time('per item', r * 1_000_000));
    oneCall.push(await time('one call', r * 1_000_000 + 500_000));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [a, b] = [median(perItem), median(oneCall)];
  process.stdout.write(`replay claims for a batch of ${batch} quotes, server-side, median of ${rounds} (load average ${(await import('node:os')).loadavg().map((v) => v.toFixed(2)).join(' ')}):\n`);
  process.stdout.write(`  ${batch} calls of one pair (rfq_write_quotes before 0151)${(a / 1000).toFixed(2)} ms  (${(a / batch).toFixed(0)} us per quote)\n`);
  process.stdout.write(`  one call of ${batch} pairs                          ${(b / 1000).toFixed(2)} ms  (${(b / batch).toFixed(0)} us per quote)\n`);
  process.stdout.write(`  saving if batched: ${((a - b) / batch).toFixed(0)} us per quote\n`);
} finally {
  await db.drop();
}
