/**
 * The one writer of a quote's status: every change is a compare-and-set on the status the caller
 * decided from with `transitionQuote` (src/domain/rfq/quote-state.ts), under the row locks the
 * caller holds (RFQ first, then its quotes).
 * A re-quote (SUBMITTED -> SUBMITTED) is written by `rfq_write_quotes` (quote-write-function.ts),
 * which guards it the same way (`where q.status = 'SUBMITTED'`).
 */
import { sql, type Selectable, type Updateable } from 'kysely';
import type { QuoteStatus } from '../domain/rfq/index.ts';
import type { QuotesTable } from './schema.ts';
import { assertBatchWritten, compareAndSetStatus, type StatusChange } from './status-change.ts';
import type { Tx } from './transaction.ts';

/** Columns a transition sets beside the status. */
export type QuoteOutcomeFields = Omit<Updateable<QuotesTable>, 'id' | 'status' | 'updated_at'>;

export type QuoteStatusChange = StatusChange<QuoteStatus, QuoteOutcomeFields>;

/** Writes one quote's transition and its fields; returns the row as written. */
export async function writeQuoteStatus(tx: Tx, change: QuoteStatusChange, now: number): Promise<Selectable<QuotesTable>> {
  return compareAndSetStatus(tx, { table: 'quotes', entity: 'quote' }, change, now);
}

/** What a settlement mode attaches to a selected quote (settlement-gateway.ts); an absent key leaves the column as it is. */
export type QuoteSettlementFields = Pick<QuoteOutcomeFields, 'permit_signature' | 'spender' | 'quote_hash' | 'delivery_deadline_secs' | 'window_starts_at' | 'window_ends_at'>;

/**
 * The batch compare-and-set as one SQL function (PL/pgSQL: its plan is kept per connection, where
 * a `language sql` function is planned again on every call), so the accept's one write (rfq_accept_write,
 * accept-functions.ts) writes statuses through the same definition. Per row, `p_fields` is a JSON
 * object of the settlement fields to set: `?` tells "set to null" from "leave".
 */
export const RFQ_WRITE_QUOTE_STATUSES_SQL = `
create or replace function rfq_write_quote_statuses(p_now int8, p_ids text[], p_from text[], p_to text[], p_deadlines int8[], p_fields text[])
returns setof quotes
language plpgsql as $fn$
begin
  return query
  update quotes q set status = d.status, updated_at = p_now,
    settlement_deadline_secs = coalesce(d.deadline, q.settlement_deadline_secs),
    permit_signature = case when d.f ? 'permit_signature' then d.f ->> 'permit_signature' else q.permit_signature end,
    spender = case when d.f ? 'spender' then d.f ->> 'spender' else q.spender end,
    quote_hash = case when d.f ? 'quote_hash' then d.f ->> 'quote_hash' else q.quote_hash end,
    delivery_deadline_secs = case when d.f ? 'delivery_deadline_secs' then (d.f ->> 'delivery_deadline_secs')::int8 else q.delivery_deadline_secs end,
    window_starts_at = case when d.f ? 'window_starts_at' then (d.f ->> 'window_starts_at')::int8 else q.window_starts_at end,
    window_ends_at = case when d.f ? 'window_ends_at' then (d.f ->> 'window_ends_at')::int8 else q.window_ends_at end
  from (select u.id, u.prior, u.status, u.deadline, u.f::jsonb as f from unnest(p_ids, p_from, p_to, p_deadlines, p_fields) as u(id, prior, status, deadline, f)) as d
  where q.id = d.id and q.status = d.prior
  returning q.*;
end
$fn$;
`;

/**
 * The batch write as the accept's and the close's one-call writes use it (accept-functions.ts,
 * close-functions.ts): every row written or the call raises (a row that moved under its lock),
 * answered as a JSON array with `xchange` as text (its exact numbers, json-rows.ts).
 */
export const RFQ_WRITE_QUOTE_BATCH_SQL = `
create or replace function rfq_write_quote_batch(p_now int8, p_ids text[], p_from text[], p_to text[], p_deadlines int8[], p_fields text[])
returns jsonb
language plpgsql as $fn$
declare
  v_written int;
  v_quotes jsonb;
begin
  select count(*), coalesce(jsonb_agg((to_jsonb(q) || jsonb_build_object('xchange', q.xchange::text))), '[]') into v_written, v_quotes
    from rfq_write_quote_statuses(p_now, p_ids, p_from, p_to, p_deadlines, p_fields) as q;
  if v_written <> coalesce(cardinality(p_ids), 0) then
    raise exception 'quote batch wrote % of % rows: some changed under their locks', v_written, cardinality(p_ids);
  end if;
  return v_quotes;
end
$fn$;
`;

export interface QuoteStatusWrite {
  id: string;
  from: QuoteStatus;
  to: QuoteStatus;
  settlementDeadlineSecs: number | null;
  fields?: QuoteSettlementFields;
}

/** The arguments of `rfq_write_quote_statuses` after `p_now`, in order. */
export function quoteStatusArguments(changes: QuoteStatusWrite[]): [string[], string[], string[], Array<number | null>, string[]] {
  return [changes.map((c) => c.id), changes.map((c) => c.from), changes.map((c) => c.to), changes.map((c) => c.settlementDeadlineSecs), changes.map((c) => JSON.stringify(c.fields ?? {}))];
}

/**
 * Writes many quotes' transitions in one statement (a selection's winner and losers, an auction
 * close's batch); `settlementDeadlineSecs` is set on a win and kept otherwise, and a winner's
 * settlement fields go into the same statement (no second write per winner). Every row must be
 * in its `from` status, or nothing is written. Rows come back in the order of `changes`.
 */
export async function writeQuoteStatuses(tx: Tx, changes: QuoteStatusWrite[], now: number): Promise<Array<Selectable<QuotesTable>>> {
  if (changes.length === 0) return [];
  const [ids, from, to, deadlines, fields] = quoteStatusArguments(changes);
  const written = await sql<Selectable<QuotesTable>>`
    select * from rfq_write_quote_statuses(${now}::int8, ${ids}::text[], ${from}::text[], ${to}::text[], ${deadlines}::int8[], ${fields}::text[])
  `.execute(tx);
  assertBatchWritten('quote', written.rows.length, changes.length);
  const byId = new Map(written.rows.map((r) => [r.id, r]));
  return changes.map((c) => byId.get(c.id)!);
}
