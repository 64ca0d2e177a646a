/**
 * What a PL/pgSQL function's plans cost per call, with and without generic plans
 * (`set plan_cache_mode = force_generic_plan`, src/store/sql/README.md), on a PostgreSQL server: the selection path's status writers and
 * funds lock called with arguments that match no row (so the time is the call, its planning and
 * its executor start-up, not the writes), in blocks alternated on one connection.
 *
 *   node bench/plan-cost.ts [postgres-url] [calls per block=2000]
 */
import pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import { migrateToLatest } from '../src/store/migrate.ts';

const adminUrl = process.argv[2] ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const calls = Number(process.argv[3] ?? 2000);
const name = `rfq_plan_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`create database ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
try {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url.toString(), max: 1 }) }) });
  await migrateToLatest(db);
  await db.destroy();
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const ids = Array.from({ length: 3 }, () => `rfq_${randomUUID()}`);
  const probes: Record<string, () => Promise<unknown>> = {
    rfq_write_rfq_statuses: () => client.query('select count(*) from rfq_write_rfq_statuses($1, $2::text[], $3::text[], $4::text[], $5::int8[], $6::text[], $7::text[], $8::text[])', [1, ids.slice(0, 1), ['PENDING'], ['SELECTED'], [1], [null], [null], [null]]),
    rfq_write_quote_statuses: () => client.query('select count(*) from rfq_write_quote_statuses($1, $2::text[], $3::text[], $4::text[], $5::int8[], $6::text[])', [1, ids, ['SUBMITTED', 'SUBMITTED', 'SUBMITTED'], ['SELECTED', 'NOT_SELECTED', 'NOT_SELECTED'], [1, null, null], ['{}', '{}', '{}']]),
    rfq_lock_funds: () => client.query('select rfq_lock_funds($1::uuid, $2::uuid, $3, $4, $5::numeric, $6, $7, $8::int8)', [randomUUID(), randomUUID(), 'USDC', 'CHAIN', '1', 'rfq', ids[0], 1]),
  };
  const setting = async (fn: string, generic: boolean) => {
    const { rows } = await client.query('select oid::regprocedure::text as sig from pg_proc where proname = $1', [fn]);
    await client.query(`alter function ${rows[0].sig} ${generic ? 'set plan_cache_mode = force_generic_plan' : 'reset plan_cache_mode'}`);
  };
  for (const [fn, probe] of Object.entries(probes)) {
    const times: Record<string, number[]> = { generic: [], auto: [] };
    for (let block = 0; block < 6; block++) {
      const generic = block % 2 === 0;
      await setting(fn, generic);
      // A fresh session each block: plans are cached per connection.
      await client.query('discard plans');
      for (let i = 0; i < 50; i++) await probe();
      const t0 = performance.now();
      for (let i = 0; i < calls; i++) await probe();
      times[generic ? 'generic' : 'auto']!.push(((performance.now() - t0) * 1000) / calls);
    }
    const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
    console.log(`${fn.padEnd(26)} per call: generic plans ${mean(times.generic!)} us, PostgreSQL's choice ${mean(times.auto!)} us  (blocks: ${times.generic!.map(Math.round).join('/')} vs ${times.auto!.map(Math.round).join('/')})`);
  }
  await client.end();
} finally {
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
