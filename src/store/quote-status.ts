/**
 * The one writer of a quote's status: every change is a compare-and-set on the status the caller
 * decided from with `transitionQuote` (src/domain/rfq/quote-state.ts), under the row locks the
 * caller holds (RFQ first, then its quotes).
 * A re-quote (SUBMITTED -> SUBMITTED) is written by `rfq_write_quotes` (sql/rfq_write_quotes.sql),
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
