/**
 * Spot accepts, group-committed: accepts that arrive while a batch is in flight share
 * one transaction and one call per side, as the quotes do (src/services/rfq/accept-batch.ts keeps
 * every decision; each call does one side of it for the whole batch).
 *
 * `rfq_accept_batch_lock` takes what the decisions read, in the order every batch of selections
 * takes its locks (the auction close's, close-auction.ts):
 * 1. the items' replay claims in one call of the one claim, `rfq_claim_timestamps` (an item whose
 *    claim was lost or whose key was revoked locks nothing);
 * 2. the takers' RFQs FOR UPDATE, in id order (an RFQ that is not the item's taker's is left out:
 *    the caller answers NOT_FOUND);
 * 3. their quotes FOR UPDATE, in id order;
 * 4. for each item whose RFQ is PENDING on a spot instrument, the accepted quote's maker's
 *    protection row FOR UPDATE and its selections within the window (`rfq_locked_protections`,
 *    accept-functions.ts), in (maker, instrument) order, each pair once.
 *
 * `rfq_accept_batch_write` writes the selections the use case decided: each item's funds lock
 * (`rfq_lock_funds`, ledger.ts), in account order and arrival order within an account; an item
 * the taker's balance does not cover is left out and the rest go on. Then the RFQs' and the
 * quotes' compare-and-set of the items that locked, each one statement for the batch
 * (`rfq_write_rfq_statuses`, `rfq_write_quote_batch`: a row that moved under its lock raises, so
 * the transaction rolls back), and the balances of their takers under the frame locks
 * (`rfq_balance_frame_rows`). It answers which items locked, the rows written and the balances.
 *
 * Both answer one JSON document, read with exact numbers (json-rows.ts).
 */
import { sql, type Selectable } from 'kysely';
import { decodeRow, parseExactJson } from './json-rows.ts';
import { BALANCE_COLUMNS, QUOTE_COLUMNS, RFQ_COLUMNS } from './row-columns.ts';
import { quoteStatusArguments, type QuoteStatusWrite } from './quote-status.ts';
import { PROTECTION_COLUMNS, type LockedProtection } from './accept-functions.ts';
import { claimKey, type ClaimOutcome } from './timestamp-claims.ts';
import type { BalancesTable, QuotesTable, RfqsTable } from './schema.ts';
import type { Tx } from './transaction.ts';
import type { LockRequest } from './ledger.ts';

export const RFQ_ACCEPT_BATCH_LOCK_SQL = `
create or replace function rfq_accept_batch_lock(p_items jsonb, p_now int8)
returns jsonb
language plpgsql as $fn$
declare
  v_keys text[];
  v_times int8[];
  v_claims jsonb := '{}';
  v_ids text[];
  v_accounts uuid[];
  v_locked text[];
  v_rfqs jsonb := '[]';
  v_quotes jsonb := '[]';
  v_protections jsonb := '[]';
  v_makers uuid[] := '{}';
  v_pair record;
begin
  select array_agg(x.access_key), array_agg(x.signed_at) into v_keys, v_times
    from jsonb_to_recordset(p_items) as x(access_key text, signed_at int8)
    where x.access_key is not null;
  if v_keys is not null then
    select coalesce(jsonb_object_agg(c.access_key || E'\\n' || c.signed_at, c.outcome), '{}') into v_claims
      from rfq_claim_timestamps(v_keys, v_times) as c;
  end if;
  -- Arrays, not joins with the JSON: a lookup by = any(array) is an index scan whatever the
  -- planner guesses of a set-returning function's rows (it guesses 100, and chose a sequential
  -- scan of quotes for one RFQ).
  select array_agg(x.rfq_id), array_agg(x.account) into v_ids, v_accounts
    from jsonb_to_recordset(p_items) as x(access_key text, signed_at int8, rfq_id text, account uuid)
    where x.access_key is null or v_claims ->> (x.access_key || E'\\n' || x.signed_at) = 'claimed';
  if v_ids is null then
    return jsonb_build_object('claims', v_claims, 'rfqs', v_rfqs, 'quotes', v_quotes, 'protections', v_protections);
  end if;
  select coalesce(jsonb_agg(to_jsonb(r) order by r.id), '[]'), array_agg(r.id) into v_rfqs, v_locked
    from (select r.* from rfqs r
          where r.id = any(v_ids) and (r.id, r.account_id) in (select w.id, w.account from unnest(v_ids, v_accounts) as w(id, account))
          order by r.id
          for update of r) as r;
  if v_locked is null then
    return jsonb_build_object('claims', v_claims, 'rfqs', v_rfqs, 'quotes', v_quotes, 'protections', v_protections);
  end if;
  select coalesce(jsonb_agg((to_jsonb(q) || jsonb_build_object('xchange', q.xchange::text)) order by q.received_at, q.id), '[]')
    into v_quotes
    from (select q.* from quotes q where q.rfq_id = any(v_locked) order by q.id for update of q) as q;
  for v_pair in
    select distinct q.maker_account_id as maker, r.instrument_id as instrument
      from jsonb_to_recordset(p_items) as x(rfq_id text, quote_id text)
      join jsonb_to_recordset(v_rfqs) as r(id text, status text, instrument_id text) on r.id = x.rfq_id
      join quotes q on q.id = x.quote_id and q.rfq_id = x.rfq_id
      join instruments i on i.instrument_id = r.instrument_id and i.type = 'SPOT'
      where r.status = 'PENDING'
      order by 1, 2
  loop
    v_protections := v_protections || rfq_locked_protections(v_pair.maker, v_pair.instrument, p_now);
    v_makers := v_makers || v_pair.maker;
  end loop;
  return jsonb_build_object('claims', v_claims, 'rfqs', v_rfqs, 'quotes', v_quotes, 'protections', v_protections,
    'barred', rfq_barred_makers(v_makers, p_now));
end
$fn$;
`;

export const RFQ_ACCEPT_BATCH_WRITE_SQL = `
create or replace function rfq_accept_batch_write(
  p_now int8, p_items jsonb,
  p_quote_items int[], p_quote_ids text[], p_quote_from text[], p_quote_to text[], p_quote_deadlines int8[], p_quote_fields text[])
returns jsonb
language plpgsql as $fn$
declare
  it record;
  v_locked int[] := '{}';
  v_ids text[]; v_from text[]; v_to text[]; v_quoted_at int8[]; v_selected text[]; v_none text[];
  v_accounts uuid[];
  v_q_ids text[]; v_q_from text[]; v_q_to text[]; v_q_deadlines int8[]; v_q_fields text[];
  v_written int;
  v_rfqs jsonb;
  v_quotes jsonb;
begin
  -- Balance rows in key order, as every batch of locks takes them; within one taker, arrival order.
  for it in
    select * from jsonb_to_recordset(p_items) as x(ord int, lock_id uuid, account uuid, token text, rail text, amount numeric, rfq_id text, at int8)
    order by x.account, x.token, x.rail, x.ord
  loop
    if rfq_lock_funds(it.lock_id, it.account, it.token, it.rail, it.amount, 'rfq', it.rfq_id, it.at) then
      v_locked := v_locked || it.ord;
    end if;
  end loop;
  if cardinality(v_locked) = 0 then
    return jsonb_build_object('locked', '[]'::jsonb);
  end if;
  select array_agg(x.rfq_id order by x.ord), array_agg(x.rfq_from order by x.ord), array_agg(x.rfq_to order by x.ord),
         array_agg(x.at order by x.ord), array_agg(x.selected order by x.ord), array_agg(null::text), array_agg(distinct x.account)
    into v_ids, v_from, v_to, v_quoted_at, v_selected, v_none, v_accounts
    from jsonb_to_recordset(p_items) as x(ord int, account uuid, rfq_id text, rfq_from text, rfq_to text, at int8, selected text)
    where x.ord = any(v_locked);
  select count(*), coalesce(jsonb_agg(to_jsonb(r)), '[]') into v_written, v_rfqs
    from rfq_write_rfq_statuses(p_now, v_ids, v_from, v_to, v_quoted_at, v_selected, v_none, v_none) as r;
  if v_written <> cardinality(v_ids) then
    raise exception 'accept batch wrote % of % RFQs: some changed under their locks', v_written, cardinality(v_ids);
  end if;
  select array_agg(q.id order by q.n), array_agg(q.prior order by q.n), array_agg(q.status order by q.n),
         array_agg(q.deadline order by q.n), array_agg(q.fields order by q.n)
    into v_q_ids, v_q_from, v_q_to, v_q_deadlines, v_q_fields
    from unnest(p_quote_items, p_quote_ids, p_quote_from, p_quote_to, p_quote_deadlines, p_quote_fields)
      with ordinality as q(item, id, prior, status, deadline, fields, n)
    where q.item = any(v_locked);
  v_quotes := rfq_write_quote_batch(p_now, v_q_ids, v_q_from, v_q_to, v_q_deadlines, v_q_fields);
  return jsonb_build_object('locked', to_jsonb(v_locked), 'rfqs', v_rfqs, 'quotes', v_quotes,
    -- Under the takers' frame locks (balance-frames.ts): each frame built from these rows is numbered after every commit they include.
    'balances', rfq_balance_frame_rows(v_accounts));
end
$fn$;
`;

type RfqRow = Selectable<RfqsTable>;
type QuoteRow = Selectable<QuotesTable>;
type BalanceRow = Selectable<BalancesTable>;
type Json = Record<string, unknown>;

/** One accept of a batch, as the lock call reads it. */
export interface AcceptBatchLockItem {
  /** The request's replay claim, made inside the call; null when already claimed. */
  claim: { accessKey: string; signedAt: number } | null;
  rfqId: string;
  accountId: string;
  quoteId: string;
}

export interface AcceptBatchLocked {
  /** Each item's claim outcome by `claimKey`. */
  claims: Map<string, ClaimOutcome>;
  /** The RFQs locked, by id (each its item's taker's). */
  rfqs: Map<string, RfqRow>;
  /** The locked RFQs' quotes, in arrival order. */
  quotes: QuoteRow[];
  protections: LockedProtection[];
  /** The accepted quotes' makers that may not be selected (`rfq_barred_makers`). */
  barred: string[];
}

/** Items must name distinct RFQs and distinct claims (the batcher keeps repeats for a later batch). */
export async function lockAcceptBatch(tx: Tx, items: readonly AcceptBatchLockItem[], now: number): Promise<AcceptBatchLocked> {
  const payload = JSON.stringify(items.map((i) => ({ access_key: i.claim?.accessKey ?? null, signed_at: i.claim?.signedAt ?? null, rfq_id: i.rfqId, account: i.accountId, quote_id: i.quoteId })));
  const { rows } = await sql<{ locked: string }>`select rfq_accept_batch_lock(${payload}::jsonb, ${now}::int8)::text as locked`.execute(tx);
  const locked = parseExactJson<{ claims: Record<string, ClaimOutcome>; rfqs: Json[]; quotes: Json[]; protections: Json[]; barred?: string[] }>(rows[0]!.locked);
  return {
    claims: new Map(Object.entries(locked.claims)),
    rfqs: new Map(locked.rfqs.map((r) => decodeRow(r, RFQ_COLUMNS)).map((r) => [r.id, r])),
    quotes: locked.quotes.map((q) => decodeRow(q, QUOTE_COLUMNS)),
    protections: locked.protections.map((p) => decodeRow(p, PROTECTION_COLUMNS)),
    barred: locked.barred ?? [],
  };
}

/** The outcome of an item's claim in `lockAcceptBatch`'s answer. */
export function batchClaimOutcome(locked: AcceptBatchLocked, claim: { accessKey: string; signedAt: number }): ClaimOutcome | undefined {
  return locked.claims.get(claimKey(claim.accessKey, claim.signedAt));
}

/** One decided selection: its funds lock, the RFQ's transition, and its quotes' (the winner first). */
export interface AcceptBatchWriteItem {
  lock: LockRequest;
  rfq: { id: string; from: string; to: string; selectedQuoteId: string; quotedAt: number };
  quotes: QuoteStatusWrite[];
}

export interface AcceptBatchWritten {
  /** Indexes (into the items written) of the selections whose funds lock was covered and which were written. */
  locked: Set<number>;
  rfqs: Map<string, RfqRow>;
  quotes: Map<string, QuoteRow>;
  balances: BalanceRow[];
}

export async function writeAcceptBatch(tx: Tx, items: readonly AcceptBatchWriteItem[], now: number): Promise<AcceptBatchWritten> {
  const payload = JSON.stringify(
    items.map((i, ord) => ({
      ord,
      lock_id: i.lock.lockId,
      account: i.lock.accountId,
      token: i.lock.token,
      rail: i.lock.rail,
      amount: i.lock.amount.toString(),
      rfq_id: i.rfq.id,
      rfq_from: i.rfq.from,
      rfq_to: i.rfq.to,
      selected: i.rfq.selectedQuoteId,
      at: i.rfq.quotedAt,
    })),
  );
  const quoteItems = items.flatMap((i, ord) => i.quotes.map(() => ord));
  const [ids, from, to, deadlines, fields] = quoteStatusArguments(items.flatMap((i) => i.quotes));
  const { rows } = await sql<{ written: string }>`
    select rfq_accept_batch_write(${now}::int8, ${payload}::jsonb,
      ${quoteItems}::int[], ${ids}::text[], ${from}::text[], ${to}::text[], ${deadlines}::int8[], ${fields}::text[])::text as written
  `.execute(tx);
  const written = parseExactJson<{ locked: Array<number | string | bigint>; rfqs?: Json[]; quotes?: Json[]; balances?: Json[] }>(rows[0]!.written);
  return {
    locked: new Set(written.locked.map(Number)),
    rfqs: new Map((written.rfqs ?? []).map((r) => decodeRow(r, RFQ_COLUMNS)).map((r) => [r.id, r])),
    quotes: new Map((written.quotes ?? []).map((q) => decodeRow(q, QUOTE_COLUMNS)).map((q) => [q.id, q])),
    balances: (written.balances ?? []).map((b) => decodeRow(b, BALANCE_COLUMNS)),
  };
}
