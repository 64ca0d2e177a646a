/**
 * A perp execution's audit trail (`perp_execution_calls`): every venue request and reply, and
 * every decision, stored with the execution (DESIGN.md 9.3); and the maker's signed venue order
 * and cancel stored with its quote (`perp_quote_orders`), which the trail's "maker order sending"
 * record is written beside.
 */
import { sql } from 'kysely';
import type { SignedVenueAction } from '../domain/perp/types.ts';
import type { Reader, Tx } from './transaction.ts';

export interface CallRecord {
  kind: string;
  quoteId?: string | null;
  request?: unknown;
  reply?: unknown;
  error?: string | null;
  startedAt: number;
  endedAt?: number | null;
}

const callRow = (executionId: string, call: CallRecord) => ({
  execution_id: executionId,
  kind: call.kind,
  quote_id: call.quoteId ?? null,
  request: call.request === undefined ? null : JSON.stringify(call.request),
  reply: call.reply === undefined ? null : JSON.stringify(call.reply),
  error: call.error ?? null,
  started_at: call.startedAt,
  ended_at: call.endedAt ?? null,
});

export async function recordCall(tx: Tx | Reader, executionId: string, call: CallRecord): Promise<void> {
  await recordCalls(tx, executionId, [call]);
}

/** Several records in one statement (in order): a transition's calls and its decision. */
export async function recordCalls(tx: Tx | Reader, executionId: string, calls: readonly CallRecord[]): Promise<void> {
  if (calls.length === 0) return;
  await tx.insertInto('perp_execution_calls').values(calls.map((call) => callRow(executionId, call))).execute();
}

/** The execution's records in the order they were written. */
export async function callsOfExecution(db: Reader, executionId: string) {
  return db.selectFrom('perp_execution_calls').selectAll().where('execution_id', '=', executionId).orderBy('id').execute();
}

/** The records of several executions, in the order they were written (empty ids: none). */
export async function callsOfExecutions(db: Reader, executionIds: readonly string[]) {
  if (executionIds.length === 0) return [];
  return db.selectFrom('perp_execution_calls').selectAll().where('execution_id', 'in', [...executionIds]).orderBy('id').execute();
}

/** The maker's signed venue order and cancel, stored with its quote at quote time (DESIGN.md 9.2). */
export interface MakerVenueActions {
  order: SignedVenueAction;
  cancel: SignedVenueAction;
}

/** The signed order and cancel of a `perp_quote_orders` row (null columns: the quote has none). */
export function venueActionsOf(row: { maker_order: string | null; maker_cancel: string | null }): MakerVenueActions | null {
  // perp_quote_orders keeps them as TEXT exactly as received (key order is signed); JSON.parse keeps that order.
  if (row.maker_order === null || row.maker_cancel === null) return null;
  return { order: JSON.parse(row.maker_order) as SignedVenueAction, cancel: JSON.parse(row.maker_cancel) as SignedVenueAction };
}

export async function makerVenueActions(db: Reader, quoteId: string): Promise<MakerVenueActions | null> {
  const result = await sql<{ maker_order: string; maker_cancel: string }>`
    select maker_order, maker_cancel from perp_quote_orders where quote_id = ${quoteId}
  `.execute(db);
  return venueActionsOf(result.rows[0] ?? { maker_order: null, maker_cancel: null });
}

/**
 * The maker's signed order and cancel for `quoteId`, and the "maker order sending" record written
 * in the same statement, only when there is an order to send: after it, a run that finds the
 * record looks the order up by its cloid instead of sending it again.
 */
export async function recordMakerOrderSending(db: Reader, executionId: string, quoteId: string, at: number): Promise<MakerVenueActions | null> {
  const result = await sql<{ maker_order: string; maker_cancel: string }>`
    with o as (select maker_order, maker_cancel from perp_quote_orders where quote_id = ${quoteId}),
    recorded as (
      insert into perp_execution_calls (execution_id, kind, quote_id, started_at)
      select ${executionId}::text, 'makerOrderSending', ${quoteId}::text, ${at}::int8 from o
    )
    select maker_order, maker_cancel from o
  `.execute(db);
  return venueActionsOf(result.rows[0] ?? { maker_order: null, maker_cancel: null });
}
