/**
 * The operator's view of perp executions (GET /admin/v1/perp/executions): newest first, by phase
 * or RFQ, each with its RFQ's outcome and its audit trail of venue calls and decisions.
 */
import type { Selectable } from 'kysely';
import type { ServiceDeps } from '../deps.ts';
import type { PerpExecutionCallsTable } from '../../store/schema.ts';
import { ServiceError } from '../../domain/errors.ts';
import { isTerminalExecution, type ExecutionPhase } from '../../domain/perp/execution.ts';
import type { RfqStatus } from '../../domain/rfq/types.ts';
import { callsOfExecution, callsOfExecutions } from '../../store/perp-execution-calls.ts';
import { listedPerpExecution, listedPerpExecutions } from '../../store/perp-execution-rows.ts';
import { executionPhase, executionState, type ExecutionRow } from '../perp/execution-rows.ts';
import { decodeCursor, pageOf } from '../paging.ts';

export interface PerpExecutionFilter {
  phase?: ExecutionPhase | undefined;
  rfqId?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

type ListedRow = ExecutionRow & { instrument_id: string; rfq_status: RfqStatus; rfq_failure_code: string | null; taker_address: string };

function callView(call: Selectable<PerpExecutionCallsTable>) {
  return { kind: call.kind, quoteId: call.quote_id, request: call.request, reply: call.reply, error: call.error, startedAt: call.started_at, endedAt: call.ended_at };
}

function executionView(row: ListedRow, calls: Selectable<PerpExecutionCallsTable>[]) {
  const state = executionState(row);
  const phase = executionPhase(row);
  return {
    executionId: row.id,
    rfqId: row.rfq_id,
    instrumentId: row.instrument_id,
    rfqStatus: row.rfq_status,
    rfqFailureCode: row.rfq_failure_code,
    takerAddress: row.taker_address,
    quoteId: row.quote_id,
    phase,
    open: !isTerminalExecution(phase),
    currentQuoteId: state.currentQuoteId,
    cascade: state.cascade,
    makerOrdersSent: state.makerOrdersSent,
    resolveBy: state.resolveBy,
    signer: row.signer,
    nonce: row.nonce === null ? null : Number(row.nonce),
    cloid: row.cloid,
    takerSentAt: row.taker_sent_at,
    takerReplyAt: row.taker_reply_at,
    failureCode: row.failure_code,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    calls: calls.map(callView),
  };
}

export async function listPerpExecutions(deps: ServiceDeps, filter: PerpExecutionFilter) {
  const limit = filter.limit ?? 50;
  const before = filter.cursor ? decodeCursor(filter.cursor, 'cursor') : undefined;
  const rows = (await listedPerpExecutions(deps.db, { phase: filter.phase, rfqId: filter.rfqId, before }, limit + 1)) as ListedRow[];
  const calls = await callsOfExecutions(deps.db, rows.slice(0, limit).map((r) => r.id));
  return pageOf(rows, limit, (row) => ({ at: row.created_at, id: row.id }), (row) => executionView(row, calls.filter((c) => c.execution_id === row.id)));
}

export async function getPerpExecution(deps: ServiceDeps, executionId: string) {
  const row = (await listedPerpExecution(deps.db, executionId)) as ListedRow | undefined;
  if (!row) throw new ServiceError('NOT_FOUND', `no perp execution ${executionId}`);
  return executionView(row, await callsOfExecution(deps.db, row.id));
}
