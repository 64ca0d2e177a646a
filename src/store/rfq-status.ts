/**
 * The one writer of an RFQ's status: every change is a compare-and-set on the status the caller
 * decided from with `transitionRfq` (src/domain/rfq/rfq-state.ts), under the RFQ's row lock.
 */
import { sql, type Selectable, type Updateable } from 'kysely';
import type { RfqStatus } from '../domain/rfq/index.ts';
import type { RfqsTable } from './schema.ts';
import { assertBatchWritten, compareAndSetStatus, type StatusChange } from './status-change.ts';
import type { Tx } from './transaction.ts';

/** Columns a transition sets beside the status (the outcome's fields). */
export type RfqOutcomeFields = Omit<Updateable<RfqsTable>, 'id' | 'status' | 'updated_at'>;

export type RfqStatusChange = StatusChange<RfqStatus, RfqOutcomeFields>;

/** Writes one RFQ's transition and its fields; returns the row as written. */
export async function writeRfqStatus(tx: Tx, change: RfqStatusChange, now: number): Promise<Selectable<RfqsTable>> {
  return compareAndSetStatus(tx, { table: 'rfqs', entity: 'RFQ' }, change, now);
}

/** The fields an auction close sets; null keeps the column as it is. */
export interface RfqCloseFields {
  quoted_at: number | null;
  selected_quote_id: string | null;
  failure_code: string | null;
  failure_reason: string | null;
}

/**
 * Writes many RFQs' transitions in one statement (the auction close's batch); every row must be
 * in its `from` status, or nothing is written.
 */
export async function writeRfqStatuses(tx: Tx, changes: Array<RfqStatusChange & { fields: RfqCloseFields }>, now: number): Promise<Array<Selectable<RfqsTable>>> {
  if (changes.length === 0) return [];
  const column = <K extends keyof RfqCloseFields>(key: K) => changes.map((c) => c.fields[key]);
  const written = await sql<Selectable<RfqsTable>>`
    update rfqs r set
      status = d.status, updated_at = ${now},
      quoted_at = coalesce(d.quoted_at, r.quoted_at),
      selected_quote_id = coalesce(d.selected, r.selected_quote_id),
      failure_code = coalesce(d.failure_code, r.failure_code),
      failure_reason = coalesce(d.failure_reason, r.failure_reason)
    from unnest(
      ${changes.map((c) => c.id)}::text[], ${changes.map((c) => c.from)}::text[], ${changes.map((c) => c.to)}::text[],
      ${column('quoted_at')}::int8[], ${column('selected_quote_id')}::text[], ${column('failure_code')}::text[], ${column('failure_reason')}::text[]
    ) as d(id, prior, status, quoted_at, selected, failure_code, failure_reason)
    where r.id = d.id and r.status = d.prior
    returning r.*
  `.execute(tx);
  assertBatchWritten('RFQ', written.rows.length, changes.length);
  return written.rows;
}
