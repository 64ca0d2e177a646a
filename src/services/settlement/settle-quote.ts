/**
 * Applies an observed `RfqSettled` (DESIGN.md section 5) inside the chain follower's step
 * transaction: the quote it names is found by `quoteHash`; the event counts only if it came from
 * the quote's registered spender (a factory wrapper, checked at registration), names the quote's
 * maker, and moved exactly the quote's legs in the tokens' on-chain addresses. Then, once, the
 * shared settle step (`settle-spot.ts`: ledger, SETTLED, executed amounts, frames), and the relay
 * timed from the selection (`late-relay.ts`).
 *
 * Status guards make it idempotent: a re-delivered event finds the quote SETTLED and does
 * nothing. An event for a quote already FAILED means custody paid after the service released the
 * taker's lock; the ledger follows the chain: the custody movement is booked against the
 * `suspense` book (the taker is not touched, their RFQ stays FAILED) and an anomaly is recorded for
 * the operator. Events that do not match are recorded as anomalies and otherwise ignored.
 */
import type { Logger } from 'pino';
import type { Selectable } from 'kysely';
import { settledAfterFailurePostings } from '../../domain/ledger/index.ts';
import { postMovement } from '../../store/ledger.ts';
import { newestSettlementAnomalies, recordSettlementAnomaly, type NewSettlementAnomaly } from '../../store/settlement-anomalies.ts';
import { addressOfAccount } from '../../store/accounts.ts';
import { lockRfqThenQuote, quoteByHash, tokenAddresses } from '../../store/settlement-matching.ts';
import type { Tx } from '../../store/transaction.ts';
import type { SettlementAnomaliesTable } from '../../store/schema.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from '../rfq/create-rfq.ts';
import type { QuoteRow } from '../rfq/rows.ts';
import { settleSpot } from './settle-spot.ts';
import { settleSweepLeg } from '../rfq/sweep-legs.ts';
import { judgeRelay } from './late-relay.ts';

export interface RfqSettledEvent {
  quoteHash: string;
  /** The contract that emitted the log. */
  emitter: string;
  maker: string;
  payToken: string;
  payAmount: bigint;
  deliverToken: string;
  deliverAmount: bigint;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  /** The block's timestamp, which times the relay (late-relay.ts); absent when not known. */
  blockTimestampSecs?: number;
}

export type SettleOutcome = 'settled' | 'alreadySettled' | 'unknownQuote' | 'mismatch' | 'afterFailure' | 'notSettleable';

const same = (a: string | null | undefined, b: string) => a !== null && a !== undefined && a.toLowerCase() === b.toLowerCase();

export async function settleQuote(tx: Tx, deps: ServiceDeps, event: RfqSettledEvent, logger: Logger): Promise<SettleOutcome> {
  const now = deps.clock.now();
  const txHash = event.txHash.toLowerCase();
  const found = await quoteByHash(tx, event.quoteHash.toLowerCase());
  if (!found) {
    // Anyone can emit this event shape; one naming no selected quote is noise.
    logger.warn({ event: printable(event) }, 'RfqSettled for no selected quote: ignored');
    return 'unknownQuote';
  }
  // Lock order: RFQ before its quotes (rows.ts).
  const { rfq, quote } = await lockRfqThenQuote(tx, found.rfq_id, found.id);

  const mismatches = await checkEvent(tx, quote, event);
  if (mismatches.length > 0) {
    logger.error({ event: printable(event), quoteId: quote.id, mismatches }, 'RfqSettled does not match its quote: ignored');
    await recordAnomaly(tx, event, { kind: 'MISMATCH', quoteId: quote.id, rfqId: rfq.id, detail: { mismatches, event: printable(event) }, at: now });
    return 'mismatch';
  }
  if (quote.status === 'SETTLED') return 'alreadySettled';
  if (quote.status === 'FAILED' || rfq.status !== 'QUOTED' || quote.status !== 'SELECTED') {
    return settledAfterFailure(tx, deps, event, quote, rfq.status, logger, now);
  }

  const instrument = await resolveInstrument(deps, rfq.instrument_id);
  // A leg of a sweep settles on its own; its RFQ ends with its last leg (sweep-legs.ts).
  if (rfq.fill === 'SWEEP') await settleSweepLeg(tx, deps, { rfq, quote, instrument, txHash, now });
  else await settleSpot(tx, deps, { rfq, quote, instrument, txHash, now });
  if (quote.settlement_mode === 'permit2') await judgeRelay(tx, rfq, quote, { blockTimestampSecs: event.blockTimestampSecs ?? null, observedAt: now });
  return 'settled';
}

/** What about the event differs from the quote; empty when it is this quote's settlement. */
async function checkEvent(tx: Tx, quote: QuoteRow, event: RfqSettledEvent): Promise<string[]> {
  const makerAddress = await addressOfAccount(tx, quote.maker_account_id);
  const tokens = await tokenAddresses(tx, [quote.maker_pays_token, quote.maker_receives_token]);
  const wrong: string[] = [];
  if (quote.settlement_mode !== 'permit2') wrong.push('settlementMode');
  if (!same(quote.spender, event.emitter)) wrong.push('emitter');
  if (!same(makerAddress, event.maker)) wrong.push('maker');
  if (!same(tokens.get(quote.maker_receives_token), event.payToken)) wrong.push('payToken');
  if (event.payAmount !== quote.maker_receives_amount) wrong.push('payAmount');
  if (!same(tokens.get(quote.maker_pays_token), event.deliverToken)) wrong.push('deliverToken');
  if (event.deliverAmount !== quote.maker_pays_amount) wrong.push('deliverAmount');
  return wrong;
}

/**
 * Custody paid the maker and received its leg although the service had given up on the trade.
 * The chain is the truth for custody, so the custody book follows it; the counterpart is the
 * `suspense` book, not the taker (their lock was released and may be spent), until the operator
 * decides (e.g. an adjustment completing the trade for the taker).
 */
async function settledAfterFailure(tx: Tx, deps: ServiceDeps, event: RfqSettledEvent, quote: QuoteRow, rfqStatus: string, logger: Logger, now: number): Promise<SettleOutcome> {
  const recorded = await recordAnomaly(tx, event, {
    kind: 'SETTLED_AFTER_FAILURE',
    quoteId: quote.id,
    rfqId: quote.rfq_id,
    detail: { quoteStatus: quote.status, rfqStatus, event: printable(event) },
    at: now,
  });
  if (!recorded) return 'afterFailure';
  logger.error({ quoteId: quote.id, rfqId: quote.rfq_id, quoteStatus: quote.status, rfqStatus, txHash: event.txHash }, 'SETTLEMENT ANOMALY: RfqSettled for a trade the service had already failed; custody moved, booked to suspense for the operator');
  const postings = settledAfterFailurePostings({
    makerReceives: { token: quote.maker_receives_token, amount: quote.maker_receives_amount },
    makerPays: { token: quote.maker_pays_token, amount: quote.maker_pays_amount },
  });
  await postMovement(tx, { movementId: deps.ids.uuid(), kind: 'SETTLEMENT_AFTER_FAILURE', reference: quote.rfq_id, memo: event.txHash, at: now, postings, postingIds: postings.map(() => deps.ids.uuid()) });
  return 'afterFailure';
}

async function recordAnomaly(tx: Tx, event: RfqSettledEvent, anomaly: NewSettlementAnomaly): Promise<boolean> {
  return recordSettlementAnomaly(tx, { txHash: event.txHash.toLowerCase(), logIndex: event.logIndex }, anomaly);
}

function printable(event: RfqSettledEvent): Record<string, unknown> {
  return { ...event, payAmount: event.payAmount.toString(), deliverAmount: event.deliverAmount.toString() };
}

export interface SettlementAnomalyView {
  txHash: string;
  logIndex: number;
  kind: string;
  quoteId: string | null;
  rfqId: string | null;
  detail: Record<string, unknown>;
  createdAt: number;
  /** Set once the operator resolved it; `resolution` says how (`HANDLED...` or `REPLAYED`). */
  resolvedAt: number | null;
  resolution: string | null;
}

export function settlementAnomalyView(r: Selectable<SettlementAnomaliesTable>): SettlementAnomalyView {
  return { txHash: r.tx_hash, logIndex: r.log_index, kind: r.kind, quoteId: r.quote_id, rfqId: r.rfq_id, detail: r.detail as Record<string, unknown>, createdAt: r.created_at, resolvedAt: r.resolved_at, resolution: r.resolution };
}

/** GET /admin/v1/settlement-anomalies: newest first. */
export async function listSettlementAnomalies(deps: ServiceDeps, limit = 100): Promise<SettlementAnomalyView[]> {
  const rows = await newestSettlementAnomalies(deps.db, limit);
  return rows.map(settlementAnomalyView);
}
