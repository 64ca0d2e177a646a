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
 * Writes many quotes' transitions in one statement (a selection's winner and losers, an auction
 * close's batch); `settlementDeadlineSecs` is set on a win and kept otherwise, and a winner's
 * settlement fields go into the same statement (no second write per winner). Every row must be
 * in its `from` status, or nothing is written. Rows come back in the order of `changes`.
 */
export async function writeQuoteStatuses(
  tx: Tx,
  changes: Array<{ id: string; from: QuoteStatus; to: QuoteStatus; settlementDeadlineSecs: number | null; fields?: QuoteSettlementFields }>,
  now: number,
): Promise<Array<Selectable<QuotesTable>>> {
  if (changes.length === 0) return [];
  // Per row, a JSON object of the fields to set: `?` tells "set to null" from "leave".
  const kept = (column: string, type: 'text' | 'int8') =>
    sql`${sql.ref(column)} = case when d.f::jsonb ? ${column} then (d.f::jsonb ->> ${column})::${sql.raw(type)} else ${sql.ref(`q.${column}`)} end`;
  const written = await sql<Selectable<QuotesTable>>`
    update quotes q set status = d.status, updated_at = ${now},
      settlement_deadline_secs = coalesce(d.deadline, q.settlement_deadline_secs),
      ${kept('permit_signature', 'text')}, ${kept('spender', 'text')}, ${kept('quote_hash', 'text')},
      ${kept('delivery_deadline_secs', 'int8')}, ${kept('window_starts_at', 'int8')}, ${kept('window_ends_at', 'int8')}
    from unnest(
      ${changes.map((c) => c.id)}::text[], ${changes.map((c) => c.from)}::text[], ${changes.map((c) => c.to)}::text[],
      ${changes.map((c) => c.settlementDeadlineSecs)}::int8[], ${changes.map((c) => JSON.stringify(c.fields ?? {}))}::text[]
    ) as d(id, prior, status, deadline, f)
    where q.id = d.id and q.status = d.prior
    returning q.*
  `.execute(tx);
  assertBatchWritten('quote', written.rows.length, changes.length);
  const byId = new Map(written.rows.map((r) => [r.id, r]));
  return changes.map((c) => byId.get(c.id)!);
}
