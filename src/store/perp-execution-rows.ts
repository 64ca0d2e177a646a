/**
 * The `perp_executions` rows outside a transition's commit (src/store/perp-commit-functions.ts)
 * and its lease (src/store/perp-lease-function.ts): which are due, a lease handed back, the
 * execution an accept is being checked in, the accounts its venue calls name, and the operator's
 * listing of executions with their RFQs' outcome.
 */
import { TERMINAL_EXECUTION_PHASES, type ExecutionPhase } from '../domain/perp/execution.ts';
import { newestFirst, type PageCursor } from './newest-first.ts';
import type { Db, Reader, Tx } from './transaction.ts';

/** Up to `limit` executions due at `now` that no node holds, soonest due first. */
export async function duePerpExecutionIds(db: Reader, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('perp_executions')
    .select('id')
    .where('phase', 'not in', TERMINAL_EXECUTION_PHASES)
    .where('next_at', '<=', now)
    .where('lease_until', '<=', now)
    .orderBy('next_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Hands the lease back if `owner` still holds it, so another node may take the execution at once. */
export async function releasePerpExecutionLease(db: Db, id: string, owner: string): Promise<void> {
  await db.updateTable('perp_executions').set({ lease_owner: null, lease_until: 0 }).where('id', '=', id).where('lease_owner', '=', owner).execute();
}

/** The RFQ's execution still in `checking` (at most one): its quote, version and taker order as received. */
export async function checkingPerpExecutionOf(tx: Tx, rfqId: string) {
  return tx.selectFrom('perp_executions').select(['quote_id', 'quote_version', 'taker_order', 'state']).where('rfq_id', '=', rfqId).where('phase', '=', 'checking').executeTakeFirst();
}

/** The account of the quote's maker (the quote exists). */
export async function makerAccountOfQuote(db: Reader, quoteId: string): Promise<string> {
  return (await db.selectFrom('quotes').select('maker_account_id').where('id', '=', quoteId).executeTakeFirstOrThrow()).maker_account_id;
}

/** The account of the RFQ's taker (the RFQ exists). */
export async function takerAccountOfRfq(db: Reader, rfqId: string): Promise<string> {
  return (await db.selectFrom('rfqs').select('account_id').where('id', '=', rfqId).executeTakeFirstOrThrow()).account_id;
}

/** Executions with their RFQ's instrument, status and failure code and the taker's address. */
function listedExecutions(db: Reader) {
  return db
    .selectFrom('perp_executions')
    .innerJoin('rfqs', 'rfqs.id', 'perp_executions.rfq_id')
    .innerJoin('accounts', 'accounts.id', 'rfqs.account_id')
    .selectAll('perp_executions')
    .select(['rfqs.instrument_id as instrument_id', 'rfqs.status as rfq_status', 'rfqs.failure_code as rfq_failure_code', 'accounts.address as taker_address']);
}

/** A page of executions as the operator lists them, newest first (`limit` rows at most). */
export async function listedPerpExecutions(db: Reader, filter: { phase?: ExecutionPhase | undefined; rfqId?: string | undefined; before?: PageCursor | undefined }, limit: number) {
  let select = listedExecutions(db);
  if (filter.phase) select = select.where('perp_executions.phase', '=', filter.phase);
  if (filter.rfqId) select = select.where('perp_executions.rfq_id', '=', filter.rfqId);
  return newestFirst(select, { at: 'perp_executions.created_at', id: 'perp_executions.id' }, filter.before, limit).execute();
}

/** One execution as the operator lists it; undefined when there is none. */
export async function listedPerpExecution(db: Reader, executionId: string) {
  return listedExecutions(db).where('perp_executions.id', '=', executionId).executeTakeFirst();
}
