/**
 * What-if server (opt-in phase `whatif`): the quote transaction's SQL driven from plain node-pg
 * behind a bare Fastify route, without the service's framework (no auth, no validation, no
 * kysely, no replay claims), in two shapes:
 *   POST /quote-5  the service's statements: begin; select rfq FOR SHARE (+maker); upsert quote
 *                  returning *; outbox CTE with the two frames built in JS; commit;
 *   POST /quote-1  the same work in ONE round trip: a PL/pgSQL function (frames built in SQL),
 *                  called in autocommit.
 * Body: { rfqId, makerAccountId, price }. Runs on the bench database after the service has
 * migrated and populated it. Not part of the service: a measurement of what the SQL shape costs.
 *
 *   BENCH_DATABASE_URL=postgres://... BENCH_POOL_SIZE=10 node bench/whatif-server.ts
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { parseAmount } from '../src/domain/money/index.ts';

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('BENCH_DATABASE_URL is required');
const pool = new pg.Pool({ connectionString: url, max: Number(process.env.BENCH_POOL_SIZE ?? 10) });
pool.on('error', () => undefined);

const OUTBOX_CTE = `
    with input as (
      select * from unnest($1::uuid[], $2::text[], $3::jsonb[], $4::int8[], $5::int4[])
        as t(account_id, topic, frame, created_at, ord)
    ),
    counts as (
      select account_id, topic, count(*)::int8 as n from input where account_id is not null group by account_id, topic
    ),
    bumped as (
      insert into event_seqs (account_id, topic, last_seq)
      select account_id, topic, n from counts order by account_id, topic
      on conflict (account_id, topic) do update set last_seq = event_seqs.last_seq + excluded.last_seq
      returning account_id, topic, last_seq
    ),
    numbered as (
      select i.*, b.last_seq - c.n + row_number() over (partition by i.account_id, i.topic order by i.ord) as seq
      from input i
      left join bumped b on b.account_id = i.account_id and b.topic = i.topic
      left join counts c on c.account_id = i.account_id and c.topic = i.topic
    )
    insert into outbox (account_id, topic, seq, frame, created_at)
    select account_id, topic, case when account_id is null then null else seq end, frame, created_at
    from numbered order by ord`;

const UPSERT = 'insert into "quotes" ("id", "rfq_id", "maker_id", "maker_account_id", "version", "status", "maker_pays_token", "maker_pays_amount", "maker_receives_token", "maker_receives_amount", "taker_fee", "taker_total", "received_at", "acceptable_for_ms", "settlement_mode", "updated_at", "settlement_deadline_secs", "permit_signature", "spender", "delivery_deadline_secs", "window_starts_at", "window_ends_at", "xchange", "settled_at", "tx_hash", "created_at") values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26) on conflict ("rfq_id", "maker_id") do update set "maker_pays_token" = $27, "maker_pays_amount" = $28, "maker_receives_token" = $29, "maker_receives_amount" = $30, "taker_fee" = $31, "taker_total" = $32, "received_at" = $33, "acceptable_for_ms" = $34, "settlement_mode" = $35, "updated_at" = $36, "version" = "quotes"."version" + $37 where "quotes"."status" = $38 returning *';

await pool.query(`
  create or replace function bench_submit_quote(p_rfq text, p_maker_account uuid, p_quote_id text, p_price numeric, p_now bigint)
  returns table (quote_id text, quote_version bigint) language plpgsql as $fn$
  declare
    r rfqs%rowtype;
    mk makers%rowtype;
    q quotes%rowtype;
    fee numeric := p_price * 250 / 100000;
    f_taker jsonb;
    f_maker jsonb;
  begin
    select * into r from rfqs where id = p_rfq for share;
    if not found then raise exception 'NOT_FOUND'; end if;
    select * into mk from makers where account_id = p_maker_account;
    insert into quotes (id, rfq_id, maker_id, maker_account_id, version, status, maker_pays_token, maker_pays_amount, maker_receives_token,
      maker_receives_amount, taker_fee, taker_total, received_at, acceptable_for_ms, settlement_mode, updated_at, created_at)
    values (p_quote_id, r.id, mk.maker_id, p_maker_account, 1, 'SUBMITTED', 'ETH', r.base_qty, 'USDC', p_price, fee, p_price + fee, p_now, null,
      'permit2', p_now, p_now)
    on conflict (rfq_id, maker_id) do update set maker_pays_token = excluded.maker_pays_token, maker_pays_amount = excluded.maker_pays_amount,
      maker_receives_token = excluded.maker_receives_token, maker_receives_amount = excluded.maker_receives_amount, taker_fee = excluded.taker_fee,
      taker_total = excluded.taker_total, received_at = excluded.received_at, acceptable_for_ms = null, settlement_mode = excluded.settlement_mode,
      updated_at = excluded.updated_at, version = quotes.version + 1
      where quotes.status = 'SUBMITTED'
    returning * into q;
    if q.id is null then raise exception 'QUOTE_NOT_OPEN'; end if;
    f_taker := jsonb_build_object('kind', 'quoteUpdate', 'rfqId', q.rfq_id, 'quoteId', q.id, 'version', q.version, 'instrumentId', r.instrument_id,
      'side', r.side, 'status', q.status, 'makerPays', jsonb_build_object('token', 'ETH', 'amount', (q.maker_pays_amount / 1e18)::text),
      'makerReceives', jsonb_build_object('token', 'USDC', 'amount', (q.maker_receives_amount / 1e6)::text), 'takerTotal', (q.taker_total / 1e6)::text,
      'receivedAt', q.received_at);
    f_maker := f_taker || jsonb_build_object('kind', 'quoteStatus', 'settlementMode', q.settlement_mode);
    with input as (
      select * from unnest(array[r.account_id, p_maker_account], array['quotes', 'quoteStatus'], array[f_taker, f_maker], array[p_now, p_now], array[0, 1])
        as t(account_id, topic, frame, created_at, ord)
    ),
    counts as (select account_id, topic, count(*)::int8 as n from input group by account_id, topic),
    bumped as (
      insert into event_seqs (account_id, topic, last_seq) select account_id, topic, n from counts order by account_id, topic
      on conflict (account_id, topic) do update set last_seq = event_seqs.last_seq + excluded.last_seq
      returning account_id, topic, last_seq
    ),
    numbered as (
      select i.*, b.last_seq - c.n + row_number() over (partition by i.account_id, i.topic order by i.ord) as seq
      from input i join bumped b using (account_id, topic) join counts c using (account_id, topic)
    )
    insert into outbox (account_id, topic, seq, frame, created_at) select account_id, topic, seq, frame, created_at from numbered order by ord;
    return query select q.id, q.version;
  end $fn$;
`);

const quoteId = () => `qt_${randomUUID()}`;
const usdc = (micro: bigint) => `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, '0')}`.replace(/\.?0+$/, '');

interface Body { rfqId: string; makerAccountId: string; price: string }

const app = Fastify({ logger: false });
app.post('/quote-5', async (request, reply) => {
  const body = request.body as Body;
  const now = Date.now();
  const price = parseAmount(body.price, 6, { field: 'price' });
  const fee = (price * 250n) / 100000n;
  const client = await pool.connect();
  try {
    await client.query('begin');
    const found = await client.query<{ id: string; account_id: string; instrument_id: string; side: string; base_qty: string; maker: { maker_id: string } }>(
      'select "rfqs".*, (select to_jsonb(m) from makers m where m.account_id = $1) as "maker" from "rfqs" where "rfqs"."id" = $2 for share',
      [body.makerAccountId, body.rfqId],
    );
    const rfq = found.rows[0];
    if (!rfq) throw new Error('NOT_FOUND');
    const v = ['ETH', rfq.base_qty, 'USDC', price.toString(), fee.toString(), (price + fee).toString(), now, null, 'permit2', now];
    const upserted = await client.query<{ id: string; version: string; rfq_id: string; status: string; received_at: string; settlement_mode: string }>(UPSERT, [
      quoteId(), rfq.id, rfq.maker.maker_id, body.makerAccountId, 1, 'SUBMITTED', ...v, null, null, null, null, null, null, null, null, null, now, ...v, 1, 'SUBMITTED',
    ]);
    const q = upserted.rows[0];
    if (!q) throw new Error('QUOTE_NOT_OPEN');
    const view = {
      rfqId: q.rfq_id, quoteId: q.id, version: Number(q.version), instrumentId: rfq.instrument_id, side: rfq.side, status: q.status,
      makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: usdc(price) }, takerTotal: usdc(price + fee), receivedAt: Number(q.received_at),
    };
    const frames = [JSON.stringify({ kind: 'quoteUpdate', ...view }), JSON.stringify({ kind: 'quoteStatus', ...view, settlementMode: q.settlement_mode })];
    await client.query(OUTBOX_CTE, [[rfq.account_id, body.makerAccountId], ['quotes', 'quoteStatus'], frames, [now, now], [0, 1]]);
    await client.query('commit');
    return reply.status(202).send({ status: 'SUBMITTED', quoteId: q.id, version: Number(q.version) });
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
});

app.post('/quote-1', async (request, reply) => {
  const body = request.body as Body;
  const { rows } = await pool.query<{ quote_id: string; quote_version: string }>('select * from bench_submit_quote($1, $2, $3, $4, $5)', [
    body.rfqId, body.makerAccountId, quoteId(), parseAmount(body.price, 6, { field: 'price' }).toString(), Date.now(),
  ]);
  return reply.status(202).send({ status: 'SUBMITTED', quoteId: rows[0]!.quote_id, version: Number(rows[0]!.quote_version) });
});

const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`listening ${address}\n`);
const stop = async () => {
  await app.close();
  await pool.end();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
