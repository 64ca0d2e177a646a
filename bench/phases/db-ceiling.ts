/**
 * Database ceiling (opt-in phase `db`): the quote transaction's SQL replayed by pgbench (C client,
 * extended protocol, unnamed statements like node-pg), with no Node process in the way, in
 * variants that remove one cost at a time, next to the bare insert transaction. Runs on the
 * bench database after the quotes phase (it needs its RFQs and makers); the variants toggle the
 * outbox NOTIFY trigger on the bench database only and restore it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';

const run = promisify(execFile);

export interface DbVariant {
  name: string;
  description: string;
  tps: number;
  latencyMs: number;
  /** pgbench -r: mean latency per statement, ms. */
  statements: Array<{ ms: number; sql: string }>;
}

const FRAME = JSON.stringify({
  kind: 'quoteUpdate', rfqId: 'rfq_01a20824-44aa-7dba-8a63-98edfd2dc517', quoteId: 'qt_01a20824-4706-787e-8306-66f171001b78', version: 3,
  instrumentId: 'ETH-USDC-SPOT', side: 'BUY', status: 'SUBMITTED', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3000' },
  takerTotal: '3007.5', receivedAt: 1795432924932,
});

const SELECT = 'select r.*, (select to_jsonb(mk) from makers mk where mk.account_id = (select account_id from pgb_makers where n = :m)) as maker from rfqs r where r.id = (select id from pgb_rfqs where n = :r) for share;';
const UPSERT = 'insert into quotes (id, rfq_id, maker_id, maker_account_id, version, status, maker_pays_token, maker_pays_amount, maker_receives_token, maker_receives_amount, taker_fee, taker_total, received_at, acceptable_for_ms, settlement_mode, updated_at, settlement_deadline_secs, permit_signature, spender, delivery_deadline_secs, window_starts_at, window_ends_at, xchange, settled_at, tx_hash, created_at) select \'qt_\' || gen_random_uuid(), (select id from pgb_rfqs where n = :r), mk.maker_id, mk.account_id, 1, \'SUBMITTED\', \'ETH\', 1000000000000000000, \'USDC\', 3000000000, 7500000, 3007500000, (extract(epoch from clock_timestamp()) * 1000)::int8, null, \'permit2\', (extract(epoch from clock_timestamp()) * 1000)::int8, null, null, null, null, null, null, null, null, null, (extract(epoch from clock_timestamp()) * 1000)::int8 from pgb_makers mk where mk.n = :m on conflict (rfq_id, maker_id) do update set maker_pays_token = \'ETH\', maker_pays_amount = 1000000000000000000, maker_receives_token = \'USDC\', maker_receives_amount = 3000000000 + :r, taker_fee = 7500000, taker_total = 3007500000, received_at = excluded.received_at, acceptable_for_ms = null, settlement_mode = \'permit2\', updated_at = excluded.updated_at, version = quotes.version + 1 where quotes.status = \'SUBMITTED\' returning *;';
const OUTBOX_CTE = `with input as (select * from unnest(array[(select account_id from pgb_rfqs where n = :r), (select account_id from pgb_makers where n = :m)]::uuid[], array['quotes', 'quoteStatus']::text[], array['${FRAME}', '${FRAME}']::jsonb[], array[(extract(epoch from clock_timestamp()) * 1000)::int8, (extract(epoch from clock_timestamp()) * 1000)::int8]::int8[], array[0, 1]::int4[]) as t(account_id, topic, frame, created_at, ord)), counts as (select account_id, topic, count(*)::int8 as n from input where account_id is not null group by account_id, topic), bumped as (insert into event_seqs (account_id, topic, last_seq) select account_id, topic, n from counts order by account_id, topic on conflict (account_id, topic) do update set last_seq = event_seqs.last_seq + excluded.last_seq returning account_id, topic, last_seq), numbered as (select i.*, b.last_seq - c.n + row_number() over (partition by i.account_id, i.topic order by i.ord) as seq from input i left join bumped b on b.account_id = i.account_id and b.topic = i.topic left join counts c on c.account_id = i.account_id and c.topic = i.topic) insert into outbox (account_id, topic, seq, frame, created_at) select account_id, topic, case when account_id is null then null else seq end, frame, created_at from numbered order by ord;`;
const OUTBOX_PLAIN = `insert into outbox (account_id, topic, seq, frame, created_at) values ((select account_id from pgb_rfqs where n = :r), 'quotes', null, '${FRAME}', (extract(epoch from clock_timestamp()) * 1000)::int8), ((select account_id from pgb_makers where n = :m), 'quoteStatus', null, '${FRAME}', (extract(epoch from clock_timestamp()) * 1000)::int8);`;
const BARE = `insert into bench_bare_inserts (rfq_id, body, created_at) values ('rfq-' || :r, '${FRAME}', (extract(epoch from clock_timestamp()) * 1000)::int8) returning id;`;

function script(rfqs: number, makers: number, statements: string[]): string {
  return [`\\set r random(0, ${rfqs - 1})`, `\\set m random(0, ${makers - 1})`, 'BEGIN;', ...statements, 'COMMIT;', ''].join('\n');
}

function parse(output: string): { tps: number; latencyMs: number; statements: Array<{ ms: number; sql: string }> } {
  const tps = Number(/tps = ([\d.]+)/.exec(output)?.[1] ?? NaN);
  const latencyMs = Number(/latency average = ([\d.]+) ms/.exec(output)?.[1] ?? NaN);
  const statements: Array<{ ms: number; sql: string }> = [];
  for (const line of output.split('\n')) {
    const match = /^\s+([\d.]+)\s+\d+\s+(.+)$/.exec(line);
    if (match && !match[2]!.startsWith('\\set')) statements.push({ ms: Number(match[1]), sql: match[2]!.slice(0, 60) });
  }
  return { tps, latencyMs, statements };
}

export async function runDbCeiling(options: { pool: pg.Pool; url: string; connections: number; durationSecs: number; log: (line: string) => void }): Promise<DbVariant[]> {
  const { pool, log } = options;
  await pool.query(`
    create table if not exists bench_bare_inserts (id bigserial primary key, rfq_id text not null, body jsonb not null, created_at bigint not null);
    drop table if exists pgb_rfqs;
    drop table if exists pgb_makers;
    create table pgb_rfqs as select (row_number() over (order by id)) - 1 as n, id, account_id from rfqs where status = 'PENDING' and auction_ends_at > (extract(epoch from now()) * 1000)::int8 + 120000;
    create unique index on pgb_rfqs (n);
    create table pgb_makers as select (row_number() over (order by maker_id)) - 1 as n, maker_id, account_id from makers;
    create unique index on pgb_makers (n);
    analyze pgb_rfqs; analyze pgb_makers;
  `);
  const counts = await pool.query<{ rfqs: string; makers: string }>('select (select count(*) from pgb_rfqs) as rfqs, (select count(*) from pgb_makers) as makers');
  const rfqs = Number(counts.rows[0]!.rfqs);
  const makers = Number(counts.rows[0]!.makers);
  if (rfqs === 0 || makers === 0) throw new Error('db phase needs the open RFQs and makers of the quotes phase');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rfq-bench-pgbench-'));
  const variants: Array<{ name: string; description: string; statements: string[]; notify: boolean }> = [
    { name: 'bare insert', description: 'begin; insert; commit (the baseline route SQL)', statements: [BARE], notify: true },
    { name: 'quote', description: 'the quote transaction as the service sends it', statements: [SELECT, UPSERT, OUTBOX_CTE], notify: true },
    { name: 'quote, no NOTIFY', description: 'outbox statement trigger disabled', statements: [SELECT, UPSERT, OUTBOX_CTE], notify: false },
    { name: 'quote, no NOTIFY, plain outbox', description: 'outbox rows without the event_seqs CTE', statements: [SELECT, UPSERT, OUTBOX_PLAIN], notify: false },
    { name: 'quote, no outbox', description: 'select for share + upsert only', statements: [SELECT, UPSERT], notify: false },
  ];
  const results: DbVariant[] = [];
  try {
    for (const variant of variants) {
      const file = path.join(dir, `${variant.name.replace(/\W+/g, '-')}.sql`);
      await writeFile(file, script(rfqs, makers, variant.statements));
      await pool.query(`alter table outbox ${variant.notify ? 'enable' : 'disable'} trigger outbox_notify`);
      log(`db: pgbench "${variant.name}" ${options.connections} clients, ${options.durationSecs} s`);
      const { stdout } = await run('pgbench', ['-n', '-M', 'extended', '-r', '-c', String(options.connections), '-j', '2', '-T', String(options.durationSecs), '-f', file, options.url], {
        maxBuffer: 1 << 22,
      });
      results.push({ name: variant.name, description: variant.description, ...parse(stdout) });
    }
  } finally {
    await pool.query('alter table outbox enable trigger outbox_notify');
    await rm(dir, { recursive: true, force: true });
  }
  return results;
}
