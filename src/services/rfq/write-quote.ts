/**
 * The quote write in one statement (one round trip, its own implicit transaction): re-checks
 * everything that can change (RFQ still PENDING and open, locked FOR SHARE so an accept or close
 * waits for it; maker active, unsuspended, approved for the pair and mode), inserts or re-prices
 * the quote (only while SUBMITTED), and writes the taker's `quoteUpdate` and the maker's
 * `quoteStatus` frames with their sequence numbers. The frames are rendered in TypeScript; SQL
 * only fills in the quote id and version it assigns.
 */
import { sql } from 'kysely';
import type { Db } from '../../store/transaction.ts';

export interface QuoteWrite {
  quoteId: string;
  rfqId: string;
  takerAccountId: string;
  makerAccountId: string;
  pair: string;
  mode: string;
  makerPaysToken: string;
  makerPaysAmount: bigint;
  makerReceivesToken: string;
  makerReceivesAmount: bigint;
  takerFee: bigint;
  takerTotal: bigint;
  acceptableForMs: number | null;
  now: number;
  takerFrame: Record<string, unknown>;
  makerFrame: Record<string, unknown>;
}

export interface QuoteWriteOutcome {
  rfqOpen: boolean;
  makerAllowed: boolean;
  quoteId: string | null;
  version: number | null;
}

export async function writeQuote(db: Db, w: QuoteWrite): Promise<QuoteWriteOutcome> {
  const result = await sql<{ rfq_open: number; maker_allowed: number; quote_id: string | null; version: number | null }>`
    with rfq as (
      select id from rfqs where id = ${w.rfqId} and status = 'PENDING' and auction_ends_at > ${w.now} for share
    ),
    maker as (
      select maker_id from makers
      where account_id = ${w.makerAccountId} and active and (suspended_until is null or suspended_until <= ${w.now})
        and pairs ? ${w.pair} and settlement_modes ? ${w.mode}
    ),
    q as (
      insert into quotes (
        id, rfq_id, maker_id, maker_account_id, version, status,
        maker_pays_token, maker_pays_amount, maker_receives_token, maker_receives_amount,
        taker_fee, taker_total, received_at, acceptable_for_ms, settlement_mode, created_at, updated_at
      )
      select ${w.quoteId}, rfq.id, maker.maker_id, ${w.makerAccountId}, 1, 'SUBMITTED',
        ${w.makerPaysToken}, ${w.makerPaysAmount}, ${w.makerReceivesToken}, ${w.makerReceivesAmount},
        ${w.takerFee}, ${w.takerTotal}, ${w.now}, ${w.acceptableForMs}::int8, ${w.mode}, ${w.now}, ${w.now}
      from rfq cross join maker
      on conflict (rfq_id, maker_id) do update set
        maker_pays_token = excluded.maker_pays_token, maker_pays_amount = excluded.maker_pays_amount,
        maker_receives_token = excluded.maker_receives_token, maker_receives_amount = excluded.maker_receives_amount,
        taker_fee = excluded.taker_fee, taker_total = excluded.taker_total, received_at = excluded.received_at,
        acceptable_for_ms = excluded.acceptable_for_ms, settlement_mode = excluded.settlement_mode,
        updated_at = excluded.updated_at, version = quotes.version + 1
      where quotes.status = 'SUBMITTED'
      returning id, version
    ),
    events as (
      select ${w.takerAccountId}::uuid as account_id, 'quotes'::text as topic,
             jsonb_set(jsonb_set(${JSON.stringify(w.takerFrame)}::jsonb, '{quoteId}', to_jsonb(q.id)), '{version}', to_jsonb(q.version)) as frame
      from q
      union all
      select ${w.makerAccountId}::uuid, 'quoteStatus'::text,
             jsonb_set(jsonb_set(${JSON.stringify(w.makerFrame)}::jsonb, '{quoteId}', to_jsonb(q.id)), '{version}', to_jsonb(q.version))
      from q
    ),
    bumped as (
      insert into event_seqs (account_id, topic, last_seq)
      select account_id, topic, 1 from events order by account_id, topic
      on conflict (account_id, topic) do update set last_seq = event_seqs.last_seq + 1
      returning account_id, topic, last_seq
    ),
    written as (
      insert into outbox (account_id, topic, seq, frame, created_at)
      select e.account_id, e.topic, b.last_seq, e.frame, ${w.now}
      from events e join bumped b on b.account_id = e.account_id and b.topic = e.topic
      order by e.topic
      returning id
    )
    select (select count(*) from rfq)::int as rfq_open,
           (select count(*) from maker)::int as maker_allowed,
           (select id from q) as quote_id,
           (select version from q) as version,
           (select count(*) from written)::int as events
  `.execute(db);
  const row = result.rows[0]!;
  return { rfqOpen: row.rfq_open > 0, makerAllowed: row.maker_allowed > 0, quoteId: row.quote_id, version: row.version === null ? null : Number(row.version) };
}
