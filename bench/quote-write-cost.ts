/**
 * What one group-committed quote batch costs in PostgreSQL (the quote write's queue is
 * most of quote -> taker `quoteUpdate` under load, and of the re-quote tail). On a fresh bench
 * database: 20 makers with access keys, 100 open RFQs of one taker, then `--rounds` calls of
 * `rfq_write_quotes(items, true)` with `--batch` re-quotes each (claims on, frames of the bench's
 * size), one transaction per call, timed at the client on the local socket. With `--variant <sql>`
 * (a `create or replace` of the function) the two definitions alternate in blocks of ten calls
 * (the first two of each block not counted: plan caching) and each gets its median.
 * Usage: node bench/quote-write-cost.ts [--batch 40] [--rounds 80] [--variant file.sql] [--db url]
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createBenchDatabase } from './lib/database.ts';
import { openStore } from '../src/store/database.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { sqlFunctionText } from '../src/store/sql-functions.ts';

const { values: args } = parseArgs({ options: { batch: { type: 'string', default: '40' }, rounds: { type: 'string', default: '80' }, variant: { type: 'string' }, db: { type: 'string' } } });
const batch = Number(args.batch);
const rounds = Number(args.rounds);
const variant = args.variant ? readFileSync(args.variant, 'utf8') : null;
const db = await createBenchDatabase(args.db ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
try {
  const store = await openStore({ kind: 'postgres', url: db.url, poolSize: 1 });
  await migrateToLatest(store.db);
  const taker = randomUUID();
  await store.db.insertInto('accounts').values({ id: taker, address: '0x0000000000000000000000000000000000000001', created_at: 1 }).execute();
  await store.db.insertInto('tokens').values([{ symbol: 'ETH', decimals: 18, address: null, updated_at: 1 }, { symbol: 'USDC', decimals: 6, address: null, updated_at: 1 }]).execute();
  await store.db.insertInto('instruments').values({ instrument_id: 'ETH-USDC-SPOT', base: 'ETH', quote: 'USDC', type: 'SPOT', taker_fee_tenth_bp: 25, min_quote_notional: null, enabled: true, updated_at: 1 }).execute();
  const makers = Array.from({ length: 20 }, () => randomUUID());
  await store.db.insertInto('accounts').values(makers.map((id, m) => ({ id, address: `0x${String(m + 10).padStart(40, '0')}`, created_at: 1 }))).execute();
  await store.db.insertInto('makers').values(makers.map((account_id) => ({ maker_id: randomUUID(), account_id, active: true, pairs: JSON.stringify(['ETH-USDC']), settlement_modes: JSON.stringify(['promised']), spender: null, adapter_signer: null, suspended_until: null, created_at: 1, updated_at: 1 }))).execute();
  await store.db.insertInto('api_keys').values(makers.map((account_id, m) => ({ access_key: `ak${m}`, account_id, secret_enc: 'x', maker_scoped: true, created_at: 1, expires_at: 10 ** 15, revoked_at: null }))).execute();
  const rfqs = Array.from({ length: 100 }, (_, n) => `rfq_${n}_${randomUUID()}`);
  await store.db.insertInto('rfqs').values(rfqs.map((id) => ({
    id, account_id: taker, instrument_id: 'ETH-USDC-SPOT', side: 'BUY' as const, base_qty: 10n ** 18n, quote_limit: null, taker_fee_tenth_bp: 25, auto_accept: false,
    status: 'PENDING' as const, created_at: 1, auction_ends_at: 10 ** 13, settlement_deadline_secs: 10 ** 10, quoted_at: null, settled_at: null, executed_pay_amount: null,
    executed_recv_amount: null, taker_fee: null, tx_hash: null, failure_code: null, failure_reason: null, selected_quote_id: null, idempotency_key: null,
    request_fingerprint: 'f', updated_at: 1,
  }))).execute();
  await store.close();

  // Frames of about the size the service renders (quoteView); the function only copies them.
  const frame = (kind: string, k: number) => ({ kind, rfqId: 'x', quoteId: null, version: null, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.0' }, makerReceives: { token: 'USDC', amount: `3000.${k}` }, takerFee: { token: 'USDC', amount: '0.1' }, takerTotal: { token: 'USDC', amount: '3000.1' }, receivedAt: 1, acceptableUntil: null, status: 'SUBMITTED', settlementMode: 'promised' });
  let k = 0;
  const items = () => Array.from({ length: batch }, (_, ord) => {
    k++;
    const m = Math.floor(k / rfqs.length) % makers.length;
    return { ord, access_key: `ak${m}`, signed_at: k, quote_id: `q_${randomUUID()}`, rfq_id: rfqs[k % rfqs.length], taker, maker_account: makers[m], pair: 'ETH-USDC', mode: 'promised',
      pays_token: 'ETH', pays_amount: '1000000000000000000', recv_token: 'USDC', recv_amount: String(3_000_000_000 + k), fee: '0', total: '3000000000', acceptable: null, now: 100 + k,
      taker_frame: frame('quoteUpdate', k), maker_frame: frame('quoteStatus', k), xchange: null, adapter_signer: null };
  });
  const client = await db.pool.connect();
  const times: Record<'current' | 'variant', number[]> = { current: [], variant: [] };
  try {
    for (let r = 0; r < rounds + 10; r++) {
      const which = variant && Math.floor(r / 10) % 2 === 1 ? 'variant' : 'current';
      if (variant && r % 10 === 0) await client.query(which === 'variant' ? variant : sqlFunctionText('rfq_write_quotes'));
      const payload = JSON.stringify(items());
      await client.query('begin');
      const t0 = performance.now();
      await client.query('select * from rfq_write_quotes($1::jsonb, true)', [payload]);
      const elapsed = performance.now() - t0;
      await client.query('commit');
      if (r >= 10 && r % 10 >= 2) times[which].push(elapsed);
    }
  } finally {
    client.release();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  process.stdout.write(`rfq_write_quotes, batches of ${batch} (load average ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}):\n`);
  for (const [name, xs] of Object.entries(times)) {
    if (xs.length > 0) process.stdout.write(`  ${name.padEnd(8)} median ${median(xs).toFixed(2)} ms per call, ${((median(xs) / batch) * 1000).toFixed(0)} us per quote (${xs.length} calls)\n`);
  }
} finally {
  await db.drop();
}
