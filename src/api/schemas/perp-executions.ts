/** The operator's view of perp executions (DESIGN.md 9.3): state, outcome and every venue call. */
import { Type } from 'typebox';
import { EXECUTION_PHASES } from '../../domain/perp/execution.ts';
import { EvmAddress, InstrumentId, Literals, Nullable, Page, UnixMillis } from './common.ts';
import { RfqStatus } from './rfq.ts';

export const PerpExecutionPhase = Literals(EXECUTION_PHASES);

export const PerpExecutionCall = Type.Object({
  /** A venue request (`makerOrderSending`, ...) or a `decision` of the executor. */
  kind: Type.String(),
  quoteId: Nullable(Type.String()),
  request: Type.Unknown(),
  reply: Type.Unknown(),
  error: Nullable(Type.String()),
  startedAt: UnixMillis,
  endedAt: Nullable(UnixMillis),
});

export const PerpExecution = Type.Object({
  executionId: Type.String(),
  rfqId: Type.String(),
  instrumentId: InstrumentId,
  rfqStatus: RfqStatus,
  rfqFailureCode: Nullable(Type.String()),
  takerAddress: EvmAddress,
  /** The quote the taker accepted. */
  quoteId: Type.String(),
  phase: PerpExecutionPhase,
  /** False once the execution reached `refused`, `ignored` or `done`. */
  open: Type.Boolean(),
  /** The quote whose maker order is (or was last) in play, and the backups behind it, best first. */
  currentQuoteId: Type.String(),
  cascade: Type.Array(Type.String()),
  makerOrdersSent: Type.Array(Type.String()),
  resolveBy: Nullable(UnixMillis),
  signer: Nullable(Type.String()),
  nonce: Nullable(Type.Integer()),
  cloid: Nullable(Type.String()),
  takerSentAt: Nullable(UnixMillis),
  takerReplyAt: Nullable(UnixMillis),
  failureCode: Nullable(Type.String()),
  createdAt: UnixMillis,
  updatedAt: UnixMillis,
  calls: Type.Array(PerpExecutionCall, { description: 'Every venue request and reply and every decision, oldest first.' }),
});
export const PerpExecutionsPage = Page(PerpExecution);
