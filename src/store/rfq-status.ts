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

export type RfqCloseChange = RfqStatusChange & { fields: RfqCloseFields };

/** The arguments of `rfq_write_rfq_statuses` after `p_now`, in order; a null field is left out (kept). */
export function rfqStatusArguments(changes: RfqCloseChange[]): [string[], string[], string[], string[]] {
  const fields = (c: RfqCloseChange) => JSON.stringify(Object.fromEntries(Object.entries(c.fields).filter(([, value]) => value !== null)));
  return [changes.map((c) => c.id), changes.map((c) => c.from), changes.map((c) => c.to), changes.map(fields)];
}

/**
 * Writes many RFQs' transitions in one statement (the auction close's batch); every row must be
 * in its `from` status, or nothing is written.
 */
export async function writeRfqStatuses(tx: Tx, changes: RfqCloseChange[], now: number): Promise<Array<Selectable<RfqsTable>>> {
  if (changes.length === 0) return [];
  const [ids, from, to, fields] = rfqStatusArguments(changes);
  const written = await sql<Selectable<RfqsTable>>`
    select * from rfq_write_rfq_statuses(${now}::int8, ${ids}::text[], ${from}::text[], ${to}::text[], ${fields}::text[])
  `.execute(tx);
  assertBatchWritten('RFQ', written.rows.length, changes.length);
  return written.rows;
}
