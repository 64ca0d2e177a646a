/**
 * The perp part of an accept (DESIGN.md 9.3): answered 202 once the request parses. Inside the
 * accept's transaction (RFQ and quotes locked, the spot checks of RFQ, quote, version and window
 * passed) it reads the order's JSON envelope and records the execution; the perp executor does
 * the rest. One accept at a time is checked per RFQ: while one is, the same accept replays and
 * any other is 409 CONFLICT (the RFQ is still PENDING, so RFQ_NOT_PENDING would be untrue).
 */
import { ServiceError } from '../../domain/errors.ts';
import { initialExecution, type SweepExecution } from '../../domain/perp/execution.ts';
import { isPlainObject, SIGNATURE_PART } from '../../domain/perp/signed-action.ts';
import type { Tx } from '../../store/transaction.ts';
import { recordPerpExecution } from '../../store/perp-accept-function.ts';
import { checkingPerpExecutionOf } from '../../store/perp-execution-rows.ts';
import type { ServiceDeps } from '../deps.ts';
import type { QuoteRow, RfqRow } from '../rfq/rows.ts';

/** `{ action: object, nonce: integer, signature: object }`; the rest is the executor's to check. */
export function parsePerpTakerOrder(raw: unknown): Record<string, unknown> {
  const errors: { field: string; reason: string; message: string }[] = [];
  if (raw === undefined || raw === null) errors.push({ field: 'perpTakerOrder', reason: 'required', message: 'perpTakerOrder is required on a perp accept' });
  else if (!isPlainObject(raw)) errors.push({ field: 'perpTakerOrder', reason: 'type', message: 'perpTakerOrder must be an object' });
  else {
    if (!isPlainObject(raw['action'])) errors.push({ field: 'perpTakerOrder.action', reason: 'type', message: 'action must be an object' });
    if (typeof raw['nonce'] !== 'number' || !Number.isSafeInteger(raw['nonce'])) errors.push({ field: 'perpTakerOrder.nonce', reason: 'type', message: 'nonce must be an integer' });
    const signature = raw['signature'];
    if (!isPlainObject(signature)) errors.push({ field: 'perpTakerOrder.signature', reason: 'type', message: 'signature must be an object' });
    else {
      // The signature's shape is schema (spec: v is 27 or 28; r and s are hex), refused before anything is checked.
      for (const part of ['r', 's'] as const) {
        const text = signature[part];
        if (typeof text !== 'string' || !SIGNATURE_PART.test(text)) errors.push({ field: `perpTakerOrder.signature.${part}`, reason: 'format', message: `${part} must be 0x plus 1 to 64 hex characters` });
      }
      if (signature['v'] !== 27 && signature['v'] !== 28) errors.push({ field: 'perpTakerOrder.signature.v', reason: 'format', message: 'v must be 27 or 28' });
    }
  }
  if (errors.length > 0) throw new ServiceError('INVALID_REQUEST', errors[0]!.message, { errors });
  return raw as Record<string, unknown>;
}

export interface PerpAccepted {
  executionId: string;
  replayed: boolean;
}

export async function recordPerpAccept(
  tx: Tx,
  deps: ServiceDeps,
  accept: { rfq: RfqRow; quote: QuoteRow; order: Record<string, unknown>; now: number; sweep?: SweepExecution },
): Promise<PerpAccepted> {
  const { rfq, quote, order, now } = accept;
  const id = `px_${deps.ids.uuid().replace(/-/g, '')}`;
  // One call: the open execution if there is one, else this one, recorded (perp-accept-function.ts).
  const open = await recordPerpExecution(tx, { id, rfqId: rfq.id, quoteId: quote.id, accountId: rfq.account_id, quoteVersion: quote.version, takerOrder: JSON.stringify(order), state: initialExecution(quote.id, accept.sweep), now });
  if (open !== null) {
    if (open.quoteId === quote.id && open.quoteVersion === quote.version) return { executionId: open.id, replayed: true };
    throw new ServiceError('CONFLICT', 'another accept of this RFQ is being executed', { quoteId: open.quoteId });
  }
  return { executionId: id, replayed: false };
}

/**
 * Whether this accept is a retry of the one being checked for the RFQ (same quote, same version,
 * the same order to the byte): it is answered as the first was (202) whatever the clock, since the
 * first won the RFQ before the auction closed and the checks may still execute it. Read
 * only once the auction has closed: before, the recording call below finds the open execution.
 */
export async function isRetryOfCheckedAccept(tx: Tx, accept: { rfqId: string; quote: QuoteRow; order: Record<string, unknown>; expectedVersion?: number | null | undefined }): Promise<boolean> {
  const open = await checkingPerpExecutionOf(tx, accept.rfqId);
  if (!open || open.quote_id !== accept.quote.id || Number(open.quote_version) !== accept.quote.version) return false;
  if (accept.expectedVersion !== undefined && accept.expectedVersion !== null && accept.expectedVersion !== accept.quote.version) return false;
  return open.taker_order === JSON.stringify(accept.order);
}
