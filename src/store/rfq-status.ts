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
 * The batch compare-and-set as one SQL function (PL/pgSQL, so its plan is kept per connection), so the accept's one write (rfq_accept_write,
 * accept-functions.ts) writes the RFQ through the same definition. A null field keeps the column.
 */
export const RFQ_WRITE_RFQ_STATUSES_SQL = `
create or replace function rfq_write_rfq_statuses(p_now int8, p_ids text[], p_from text[], p_to text[], p_quoted_at int8[], p_selected text[], p_failure_codes text[], p_failure_reasons text[])
returns setof rfqs
language plpgsql as $fn$
begin
  return query
  update rfqs r set
    status = d.status, updated_at = p_now,
    quoted_at = coalesce(d.quoted_at, r.quoted_at),
    selected_quote_id = coalesce(d.selected, r.selected_quote_id),
    failure_code = coalesce(d.failure_code, r.failure_code),
    failure_reason = coalesce(d.failure_reason, r.failure_reason)
  from unnest(p_ids, p_from, p_to, p_quoted_at, p_selected, p_failure_codes, p_failure_reasons)
    as d(id, prior, status, quoted_at, selected, failure_code, failure_reason)
  where r.id = d.id and r.status = d.prior
  returning r.*;
end
$fn$;
`;

export type RfqCloseChange = RfqStatusChange & { fields: RfqCloseFields };

/** The arguments of `rfq_write_rfq_statuses` after `p_now`, in order. */
export function rfqStatusArguments(changes: RfqCloseChange[]): [string[], string[], string[], Array<number | null>, Array<string | null>, Array<string | null>, Array<string | null>] {
  const column = <K extends keyof RfqCloseFields>(key: K) => changes.map((c) => c.fields[key]);
  return [changes.map((c) => c.id), changes.map((c) => c.from), changes.map((c) => c.to), column('quoted_at'), column('selected_quote_id'), column('failure_code'), column('failure_reason')];
}

/**
 * Writes many RFQs' transitions in one statement (the auction close's batch); every row must be
 * in its `from` status, or nothing is written.
 */
export async function writeRfqStatuses(tx: Tx, changes: RfqCloseChange[], now: number): Promise<Array<Selectable<RfqsTable>>> {
  if (changes.length === 0) return [];
  const [ids, from, to, quotedAt, selected, failureCodes, failureReasons] = rfqStatusArguments(changes);
  const written = await sql<Selectable<RfqsTable>>`
    select * from rfq_write_rfq_statuses(${now}::int8, ${ids}::text[], ${from}::text[], ${to}::text[], ${quotedAt}::int8[], ${selected}::text[], ${failureCodes}::text[], ${failureReasons}::text[])
  `.execute(tx);
  assertBatchWritten('RFQ', written.rows.length, changes.length);
  return written.rows;
}
