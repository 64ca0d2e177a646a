/**
 * What the executor reads out of a `perp_executions` row and its signed venue actions; the rows
 * and their audit trail are read and written in src/store/perp-execution-calls.ts.
 */
import { addressOfAccount } from '../../store/accounts.ts';
import type { CallRecord } from '../../store/perp-execution-calls.ts';
import type { Reader } from '../../store/transaction.ts';
import type { ExecutionPhase, ExecutionState } from '../../domain/perp/execution.ts';
import type { SignedVenueAction } from '../../domain/perp/types.ts';
import type { ExecutionRow } from '../../store/perp-commit-functions.ts';

export type { ExecutionRow } from '../../store/perp-commit-functions.ts';
export type { CallRecord } from '../../store/perp-execution-calls.ts';

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

/** A call record as `rfq_perp_write` takes it (perp-commit-functions.ts): request and reply as JSON values. */
export function callJson(call: CallRecord) {
  return { kind: call.kind, quote_id: call.quoteId ?? null, request: call.request ?? null, reply: call.reply ?? null, error: call.error ?? null, started_at: call.startedAt, ended_at: call.endedAt ?? null };
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

/** The account's address in lower case, as venue requests name users. */
export async function accountAddress(db: Reader, accountId: string): Promise<`0x${string}`> {
  return (await addressOfAccount(db, accountId)).toLowerCase() as `0x${string}`;
}
