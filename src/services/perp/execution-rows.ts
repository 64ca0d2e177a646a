/**
 * The `perp_executions` rows and their audit trail (`perp_execution_calls`): every venue request
 * and reply, and every decision, stored with the execution (DESIGN.md 9.3).
 */
import { sql } from 'kysely';
import type { Reader, Tx } from '../../store/transaction.ts';
import type { ExecutionPhase, ExecutionState } from '../../domain/perp/execution.ts';
import type { SignedVenueAction } from '../../domain/perp/types.ts';
import type { ExecutionRow } from '../../store/perp-commit-functions.ts';

export type { ExecutionRow } from '../../store/perp-commit-functions.ts';

/** The taker's signed order exactly as received (key order preserved). */
export function takerOrderOf(row: ExecutionRow): SignedVenueAction {
  return JSON.parse(row.taker_order) as SignedVenueAction;
}

export function executionState(row: ExecutionRow): ExecutionState {
  return row.state as ExecutionState;
}

export function executionPhase(row: ExecutionRow): ExecutionPhase {
  return row.phase as ExecutionPhase;
}

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

/** A call record as `rfq_perp_write` takes it (perp-commit-functions.ts): request and reply as JSON values. */
export function callJson(call: CallRecord) {
  return { kind: call.kind, quote_id: call.quoteId ?? null, request: call.request ?? null, reply: call.reply ?? null, error: call.error ?? null, started_at: call.startedAt, ended_at: call.endedAt ?? null };
}

export async function recordCall(tx: Tx | Reader, executionId: string, call: CallRecord): Promise<void> {
  await recordCalls(tx, executionId, [call]);
}

/** Several records in one statement (in order): a transition's calls and its decision. */
export async function recordCalls(tx: Tx | Reader, executionId: string, calls: readonly CallRecord[]): Promise<void> {
  if (calls.length === 0) return;
  await tx.insertInto('perp_execution_calls').values(calls.map((call) => callRow(executionId, call))).execute();
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

export async function callsOf(db: Reader, executionId: string) {
  return db.selectFrom('perp_execution_calls').selectAll().where('execution_id', '=', executionId).orderBy('id').execute();
}

/** The maker's signed venue order and cancel, stored with its quote at quote time (DESIGN.md 9.2). */
export interface MakerVenueActions {
  order: SignedVenueAction;
  cancel: SignedVenueAction;
}

export async function makerVenueActions(db: Reader, quoteId: string): Promise<MakerVenueActions | null> {
  const result = await sql<{ maker_order: string; maker_cancel: string }>`
    select maker_order, maker_cancel from perp_quote_orders where quote_id = ${quoteId}
  `.execute(db);
  return venueActionsOf(result.rows[0] ?? { maker_order: null, maker_cancel: null });
}

/** The signed order and cancel of a `perp_quote_orders` row (null columns: the quote has none). */
export function venueActionsOf(row: { maker_order: string | null; maker_cancel: string | null }): MakerVenueActions | null {
  // perp_quote_orders keeps them as TEXT exactly as received (key order is signed); JSON.parse keeps that order.
  if (row.maker_order === null || row.maker_cancel === null) return null;
  return { order: JSON.parse(row.maker_order) as SignedVenueAction, cancel: JSON.parse(row.maker_cancel) as SignedVenueAction };
}

/** The `c` of a signed one-order action, when it has one. */
export function cloidOfSigned(signed: SignedVenueAction): `0x${string}` | null {
  const action = signed.action as { orders?: { c?: unknown }[] } | null;
  const c = action?.orders?.[0]?.c;
  return typeof c === 'string' && c.startsWith('0x') ? (c as `0x${string}`) : null;
}

/** The limit price `p` of a signed one-order action. */
export function priceOfSigned(signed: SignedVenueAction): string | null {
  const action = signed.action as { orders?: { p?: unknown }[] } | null;
  const p = action?.orders?.[0]?.p;
  return typeof p === 'string' ? p : null;
}

export async function accountAddress(db: Reader, accountId: string): Promise<`0x${string}`> {
  const row = await db.selectFrom('accounts').select('address').where('id', '=', accountId).executeTakeFirstOrThrow();
  return row.address.toLowerCase() as `0x${string}`;
}
