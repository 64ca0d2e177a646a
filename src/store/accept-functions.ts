/**
 * The taker's accept in two database calls instead of ten: the use case
 * (src/services/rfq/accept-quote.ts) keeps every decision, and each call does one side of it.
 *
 * `rfq_accept_lock` takes what the decisions read, in the lock order every selection takes:
 * 1. the request's replay claim through the one claim, `rfq_claim_timestamps` (stops there unless
 *    `claimed`: nothing else is locked for a replay or a revoked key);
 * 2. the taker's RFQ FOR UPDATE (none: stops, the caller answers NOT_FOUND);
 * 3. its quotes FOR UPDATE, in arrival order;
 * 4. while the RFQ is PENDING, on a spot instrument, for the accepted quote's maker: the maker's
 *    protection row FOR UPDATE and its selections within the window (`rfq_locked_protections`,
 *    as selection-guard.ts reads them), and whether that maker may be selected at all
 *    (`rfq_barred_makers`).
 *
 * `rfq_accept_write` writes the selection the use case decided, through the same definitions
 * the other writers use: the taker's funds lock (`rfq_lock_funds`, ledger.ts; stops with
 * `locked: false` when the balance does not cover it), the RFQ's and the quotes' compare-and-set
 * (`rfq_write_rfq_statuses`, `rfq_write_quote_statuses`; a row that moved under its lock raises,
 * so the transaction rolls back), and answers the written rows and the taker's balances after
 * the lock, from which the use case builds its frames.
 *
 * Both answer one JSON document, read with exact numbers (json-rows.ts).
 */
import { sql, type Selectable } from 'kysely';
import { decodeRow, parseExactJson, type NumericColumns } from './json-rows.ts';
import { BALANCE_COLUMNS, QUOTE_COLUMNS, RFQ_COLUMNS } from './row-columns.ts';
import { quoteStatusArguments, type QuoteStatusWrite } from './quote-status.ts';
import type { BalancesTable, MakerProtectionsTable, QuotesTable, RfqsTable } from './schema.ts';
import type { ClaimOutcome } from './timestamp-claims.ts';
import type { Tx } from './transaction.ts';
import type { LockRequest } from './ledger.ts';

/**
 * A maker's protection on an instrument, locked FOR UPDATE, with its selections inside the window
 * (as `SelectionGuard.lock` reads them): the spot accept's, the auction close's
 * (close-functions.ts) and the perp execution's lock calls (perp-commit-functions.ts) take it
 * through this one definition.
 */
export const RFQ_LOCKED_PROTECTIONS_SQL = `
create or replace function rfq_locked_protections(p_maker uuid, p_instrument text, p_now int8)
returns jsonb
language plpgsql as $fn$
declare
  v_protections jsonb;
begin
  select coalesce(jsonb_agg(to_jsonb(locked) || jsonb_build_object(
           'selected_count', coalesce(w.n, 0), 'selected_notional', coalesce(w.notional, 0))), '[]')
    into v_protections
    from (select p.maker_account_id, p.instrument_id, p.window_ms, p.max_selected_quotes, p.max_selected_notional, p.triggered_at
          from maker_protections p
          where p.maker_account_id = p_maker and p.instrument_id = p_instrument
          for update of p) as locked
    -- A tripped protection refuses whatever the count; the count is read only when it matters.
    left join lateral (select count(*) as n, sum(s.notional) as notional
          from maker_protection_selections s
          where locked.triggered_at is null and s.maker_account_id = locked.maker_account_id
            and s.instrument_id = locked.instrument_id and s.selected_at > p_now - locked.window_ms) as w on true;
  return v_protections;
end
$fn$;
`;

/**
 * The makers among `p_makers` whose quotes may not be selected now: inactive, or suspended after
 * failed settlements (`suspended_until` after `p_now`), or no longer a maker. Such a maker could
 * not settle what it won (its maker calls are refused), so every selection passes its quotes
 * over. The rows are read, not locked: a suspension committed a moment after the read is the same
 * as one committed a moment after the selection. The quote write function
 * (quote-write-function.ts) admits quotes by the same rule.
 */
export const RFQ_BARRED_MAKERS_SQL = `
create or replace function rfq_barred_makers(p_makers uuid[], p_now int8)
returns jsonb
language sql stable as $fn$
  select coalesce(jsonb_agg(k.maker order by k.maker), '[]')
    from (select distinct unnest(p_makers) as maker) as k
    where not exists (select 1 from makers m
                      where m.account_id = k.maker and m.active and (m.suspended_until is null or m.suspended_until <= p_now))
$fn$;
`;

export const RFQ_ACCEPT_LOCK_SQL = `
create or replace function rfq_accept_lock(p_access_key text, p_signed_at int8, p_rfq text, p_account uuid, p_quote text, p_now int8)
returns jsonb
language plpgsql as $fn$
declare
  v_claim text;
  v_rfq rfqs;
  v_quotes jsonb;
  v_maker uuid;
  v_protections jsonb := '[]';
  v_barred jsonb := '[]';
begin
  if p_access_key is not null then
    select c.outcome into v_claim from rfq_claim_timestamps(array[p_access_key], array[p_signed_at]) as c;
    if v_claim <> 'claimed' then
      return jsonb_build_object('claim', v_claim);
    end if;
  end if;
  select * into v_rfq from rfqs where id = p_rfq and account_id = p_account for update;
  if not found then
    return jsonb_build_object('claim', v_claim);
  end if;
  select coalesce(jsonb_agg((to_jsonb(q) || jsonb_build_object('xchange', q.xchange::text)) order by q.received_at, q.id), '[]')
    into v_quotes
    from (select * from quotes where rfq_id = p_rfq order by received_at, id for update) as q;
  if v_rfq.status = 'PENDING' and exists (select 1 from instruments i where i.instrument_id = v_rfq.instrument_id and i.type = 'SPOT') then
    select q.maker_account_id into v_maker from quotes q where q.id = p_quote and q.rfq_id = p_rfq;
    if v_maker is not null then
      v_protections := rfq_locked_protections(v_maker, v_rfq.instrument_id, p_now);
      v_barred := rfq_barred_makers(array[v_maker], p_now);
    end if;
  end if;
  return jsonb_build_object('claim', v_claim, 'rfq', to_jsonb(v_rfq), 'quotes', v_quotes, 'protections', v_protections, 'barred', v_barred);
end
$fn$;
`;

export const RFQ_ACCEPT_WRITE_SQL = `
create or replace function rfq_accept_write(
  p_now int8, p_lock_id uuid, p_account uuid, p_token text, p_rail text, p_amount numeric,
  p_rfq text, p_rfq_from text, p_rfq_to text, p_selected text,
  p_quote_ids text[], p_quote_from text[], p_quote_to text[], p_quote_deadlines int8[], p_quote_fields text[])
returns jsonb
language plpgsql as $fn$
declare
  v_rfq jsonb;
  v_quotes jsonb;
  v_balances jsonb;
begin
  if not rfq_lock_funds(p_lock_id, p_account, p_token, p_rail, p_amount, 'rfq', p_rfq, p_now) then
    return jsonb_build_object('locked', false);
  end if;
  select to_jsonb(r) into v_rfq
    from rfq_write_rfq_statuses(p_now, array[p_rfq], array[p_rfq_from], array[p_rfq_to], array[p_now], array[p_selected], array[null::text], array[null::text]) as r;
  if v_rfq is null then
    raise exception 'RFQ % is no longer %: it changed under its lock', p_rfq, p_rfq_from;
  end if;
  v_quotes := rfq_write_quote_batch(p_now, p_quote_ids, p_quote_from, p_quote_to, p_quote_deadlines, p_quote_fields);
  -- Under the account's frame lock (balance-frames.ts): the frame built from these rows is numbered after every commit they include.
  v_balances := rfq_balance_frame_rows(array[p_account]);
  return jsonb_build_object('locked', true, 'rfq', v_rfq, 'quotes', v_quotes, 'balances', v_balances);
end
$fn$;
`;

type RfqRow = Selectable<RfqsTable>;
type QuoteRow = Selectable<QuotesTable>;
type BalanceRow = Selectable<BalancesTable>;

/** A maker's protection as locked for a selection, with its selections inside the window. */
export type LockedProtection = Pick<MakerProtectionsTable, 'maker_account_id' | 'instrument_id' | 'window_ms' | 'max_selected_quotes' | 'max_selected_notional' | 'triggered_at'> & {
  selected_count: number;
  selected_notional: bigint;
};

export const PROTECTION_COLUMNS: NumericColumns<LockedProtection> = {
  bigints: { max_selected_notional: true, selected_notional: true },
  numbers: { window_ms: true, max_selected_quotes: true, triggered_at: true, selected_count: true },
};

type Json = Record<string, unknown>;

export interface AcceptLocked {
  /** The claim's outcome; null when the request's claim was not left to this call. */
  claim: ClaimOutcome | null;
  /** The taker's RFQ, locked; null when there is none (or the claim failed). */
  rfq: RfqRow | null;
  quotes: QuoteRow[];
  protections: LockedProtection[];
  /** The accepted quote's maker when it may not be selected (`rfq_barred_makers`). */
  barred: string[];
}

export async function lockForAccept(
  tx: Tx,
  request: { claim: { accessKey: string; signedAt: number } | null; rfqId: string; accountId: string; quoteId: string; now: number },
): Promise<AcceptLocked> {
  const { rows } = await sql<{ locked: string }>`
    select rfq_accept_lock(${request.claim?.accessKey ?? null}::text, ${request.claim?.signedAt ?? null}::int8, ${request.rfqId}::text, ${request.accountId}::uuid, ${request.quoteId}::text, ${request.now}::int8)::text as locked
  `.execute(tx);
  const locked = parseExactJson<{ claim: ClaimOutcome | null; rfq?: Json; quotes?: Json[]; protections?: Json[]; barred?: string[] }>(rows[0]!.locked);
  return {
    claim: locked.claim ?? null,
    rfq: locked.rfq ? decodeRow(locked.rfq, RFQ_COLUMNS) : null,
    quotes: (locked.quotes ?? []).map((q) => decodeRow(q, QUOTE_COLUMNS)),
    protections: (locked.protections ?? []).map((p) => decodeRow(p, PROTECTION_COLUMNS)),
    barred: locked.barred ?? [],
  };
}

export interface AcceptWrite {
  now: number;
  lock: LockRequest;
  rfq: { id: string; from: string; to: string; selectedQuoteId: string };
  /** The winner first, then the other open quotes. */
  quotes: QuoteStatusWrite[];
}

/** The written rows (quotes in the order asked) and the taker's balances; null when the funds lock was not covered. */
export async function writeAcceptSelection(tx: Tx, write: AcceptWrite): Promise<{ rfq: RfqRow; quotes: QuoteRow[]; balances: BalanceRow[] } | null> {
  const [ids, from, to, deadlines, fields] = quoteStatusArguments(write.quotes);
  const { lock, rfq } = write;
  const { rows } = await sql<{ written: string }>`
    select rfq_accept_write(
      ${write.now}::int8, ${lock.lockId}::uuid, ${lock.accountId}::uuid, ${lock.token}::text, ${lock.rail}::text, ${lock.amount.toString()}::numeric,
      ${rfq.id}::text, ${rfq.from}::text, ${rfq.to}::text, ${rfq.selectedQuoteId}::text,
      ${ids}::text[], ${from}::text[], ${to}::text[], ${deadlines}::int8[], ${fields}::text[])::text as written
  `.execute(tx);
  const written = parseExactJson<{ locked: boolean; rfq?: Json; quotes?: Json[]; balances?: Json[] }>(rows[0]!.written);
  if (!written.locked) return null;
  const byId = new Map((written.quotes ?? []).map((q) => decodeRow(q, QUOTE_COLUMNS)).map((q) => [q.id, q]));
  return {
    rfq: decodeRow(written.rfq!, RFQ_COLUMNS),
    quotes: write.quotes.map((q) => byId.get(q.id)!),
    balances: (written.balances ?? []).map((b) => decodeRow(b, BALANCE_COLUMNS)),
  };
}
