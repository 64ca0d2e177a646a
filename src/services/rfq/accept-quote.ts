/**
 * POST /v1/rfq/requests/{id}/accept. Locks the RFQ and its quotes, checks the auction is open, the
 * quote is this RFQ's, its version is the one the taker saw, and it conforms (status, maker
 * window, quoteLimit), then selects it. A retry of the accept that already won (same quote and
 * version) replays the 202; any other accept after selection is 409. A spot accept is
 * group-committed with the accepts arriving beside it (accept-batch.ts); a perp accept runs alone
 * and stops at the 202 once its order's envelope parses: the perp executor does the rest
 * (accept-perp.ts).
 */
import { inTransaction } from '../../store/outbox.ts';
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { acceptSweep, type SweepAcceptInput } from './accept-sweep.ts';
import { assertAuctionOpen, assertQuoteAcceptable } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { assertTimestampClaimed, claimWon, type DeferredClaim } from '../auth/timestamp-claims.ts';
import { lockForAccept } from '../../store/accept-functions.ts';
import { SelectionGuard } from '../protection/selection-guard.ts';
import { resolveInstrument } from './create-rfq.ts';
import { quoteTerms, rfqTerms, type QuoteRow, type RfqRow } from './rows.ts';
import type { Instrument, RfqStatus } from '../../domain/rfq/index.ts';
import { acceptBatcher } from './accept-batch.ts';
import { selectQuote } from './select-quote.ts';
import { isRetryOfCheckedAccept, parsePerpTakerOrder, recordPerpAccept } from '../perp/accept-perp.ts';

export interface AcceptInput {
  quoteId: string;
  expectedVersion?: number | null;
  perpTakerOrder?: unknown;
}

/** The accept as the route takes it: one quote, or on a SWEEP RFQ the sweep or the quotes it ranks. */
export interface AcceptRequestInput extends SweepAcceptInput {
  quoteId?: string | null;
  expectedVersion?: number | null;
  perpTakerOrder?: unknown;
}

export interface AcceptResult {
  rfqId: string;
  quoteId: string;
  status: RfqStatus;
  replayed: boolean;
}

export async function acceptQuote(
  deps: ServiceDeps,
  taker: { accountId: string; address: string },
  rfqId: string,
  request: AcceptRequestInput,
  claim?: DeferredClaim,
): Promise<AcceptResult & { quoteIds?: string[] }> {
  const input = await singleQuoteAccept(deps, rfqId, request);
  if (input === null) return acceptSweep(deps, taker, rfqId, sweepInput(request), claim);
  // A perp accept carries its order; every other accept is group-committed with those arriving beside it.
  if (input.perpTakerOrder !== undefined) return acceptAlone(deps, taker, rfqId, input, claim);
  return acceptBatcher(deps).accept({ taker, rfqId, input, claim, arrivedAt: deps.clock.now() });
}

/**
 * The single-quote accept the request asks for, or null for a sweep: `sweep` or `quotes`, or a
 * `quoteId` on a SWEEP RFQ (ranked as a sweep of that one quote, so `minFillQty` holds). Exactly
 * one of `quoteId`, `sweep: true` and `quotes` is required.
 */
async function singleQuoteAccept(deps: ServiceDeps, rfqId: string, request: AcceptRequestInput): Promise<AcceptInput | null> {
  const asked = [request.quoteId !== undefined && request.quoteId !== null, request.sweep === true, request.quotes !== undefined && request.quotes !== null].filter(Boolean).length;
  if (asked !== 1) throw invalidField('quoteId', asked === 0 ? 'required' : 'notAllowed', 'name exactly one of quoteId, sweep: true and quotes');
  // A sweep's perp order goes with the sweep (acceptSweep checks that the RFQ is a perp one).
  if (request.quoteId === undefined || request.quoteId === null) return null;
  // The RFQ's fill never changes: the per-node cache answers it (quote-caches.ts).
  const cached = await deps.quoteCaches.rfq(deps.db, rfqId);
  if (cached?.fill === 'SWEEP') return null;
  return { quoteId: request.quoteId, expectedVersion: request.expectedVersion, perpTakerOrder: request.perpTakerOrder };
}

function sweepInput(request: AcceptRequestInput): SweepAcceptInput {
  const perp = request.perpTakerOrder !== undefined ? { perpTakerOrder: request.perpTakerOrder } : {};
  if (request.quoteId !== undefined && request.quoteId !== null) return { quotes: [{ quoteId: request.quoteId, expectedVersion: request.expectedVersion ?? null }], ...perp };
  return { sweep: request.sweep ?? null, quotes: request.quotes ?? null, ...perp };
}

/**
 * The checks every accept makes on its locked RFQ and quotes, at `now` (its arrival): the quote
 * is this RFQ's; a retry of the accept that already won (same quote and version) is a replay;
 * otherwise the RFQ is PENDING and its auction open, the version is the one the taker saw, and
 * the quote conforms (status, maker window, quoteLimit). `clockNow` judges an RFQ no longer
 * pending: an accept that queued behind the auction close for the row lock lost to the deadline,
 * and says so (AUCTION_CLOSED, not RFQ_NOT_PENDING).
 */
export function checkAccept(rfq: RfqRow, quotes: readonly QuoteRow[], input: AcceptInput, instrument: Instrument, now: number, clockNow: number): { quote: QuoteRow; replay: boolean } {
  const quote = quotes.find((q) => q.id === input.quoteId && q.rfq_id === rfq.id);
  if (!quote) throw new ServiceError('NOT_FOUND', 'no such quote on this RFQ');
  if (rfq.status !== 'PENDING') {
    const sameAccept =
      rfq.selected_quote_id === quote.id && (input.expectedVersion === undefined || input.expectedVersion === null || input.expectedVersion === quote.version);
    if (sameAccept && rfq.quoted_at !== null) return { quote, replay: true };
    assertAuctionOpen(rfq.auction_ends_at, clockNow);
    throw new ServiceError('RFQ_NOT_PENDING', 'the RFQ is no longer pending', { status: rfq.status });
  }
  assertAuctionOpen(rfq.auction_ends_at, now);
  if (input.expectedVersion !== undefined && input.expectedVersion !== null && input.expectedVersion !== quote.version) {
    throw new ServiceError('QUOTE_VERSION_MISMATCH', 'the quote was re-priced; read it again', { currentVersion: quote.version });
  }
  assertQuoteAcceptable(rfqTerms(rfq, instrument), quoteTerms(quote), now);
  return { quote, replay: false };
}

/**
 * The accept alone, in a transaction of its own: a perp accept (its order is recorded with it),
 * and the spot accepts a batch hands back (an autoAccept RFQ, whose bound lock is released first;
 * a maker whose protection the batch itself tripped; a batch that deadlocked).
 */
export async function acceptAlone(
  deps: ServiceDeps,
  taker: { accountId: string; address: string },
  rfqId: string,
  input: AcceptInput,
  claim?: DeferredClaim,
  now: number = deps.clock.now(),
): Promise<AcceptResult> {
  const { accountId } = taker;
  const outcome = await inTransaction(deps.db, async (tx) => {
    // One call takes the claim and every lock the decisions below read (src/store/accept-functions.ts).
    const pending = claim && !claim.timestampClaimed ? claim : null;
    const locked = await lockForAccept(tx, { claim: pending, rfqId, accountId, quoteId: input.quoteId, now });
    if (pending) assertTimestampClaimed(claimWon(locked.claim ?? undefined), deps.clock.now());
    const rfq = locked.rfq;
    if (!rfq) throw new ServiceError('NOT_FOUND', 'no such RFQ');
    const quotes = locked.quotes;
    const instrument = await resolveInstrument(deps, rfq.instrument_id);
    const perp = instrument.type === 'PERP';
    if (!perp && input.perpTakerOrder !== undefined) {
      throw new ServiceError('INVALID_REQUEST', 'perpTakerOrder is only for a perp RFQ', { errors: [{ field: 'perpTakerOrder', reason: 'unexpected', message: 'perpTakerOrder is only for a perp RFQ' }] });
    }
    const perpOrder = perp ? parsePerpTakerOrder(input.perpTakerOrder) : null;
    if (perpOrder !== null && rfq.status === 'PENDING' && now >= rfq.auction_ends_at) {
      const quote = quotes.find((q) => q.id === input.quoteId && q.rfq_id === rfq.id);
      if (quote && (await isRetryOfCheckedAccept(tx, { rfqId: rfq.id, quote, order: perpOrder, expectedVersion: input.expectedVersion }))) {
        return { rfqId: rfq.id, quoteId: quote.id, status: rfq.status, replayed: true, settlementDeadline: null };
      }
    }
    const checked = checkAccept(rfq, quotes, input, instrument, now, deps.clock.now());
    const quote = checked.quote;
    if (checked.replay) return { rfqId: rfq.id, quoteId: quote.id, status: rfq.status, replayed: true, settlementDeadline: null };
    if (perpOrder !== null) {
      const accepted = await recordPerpAccept(tx, deps, { rfq, quote, order: perpOrder, now });
      // The execution's venue reads need nothing left in this transaction: they start now, beside
      // its commit. Only for an accept recorded here: accepts that are refused or replayed must
      // not turn into venue reads and signature recoveries.
      if (!accepted.replayed) deps.hooks.perpAcceptArrived?.(rfq.id, perpOrder, taker.address);
      return { rfqId: rfq.id, quoteId: quote.id, status: rfq.status, replayed: accepted.replayed, settlementDeadline: null, executionId: accepted.executionId };
    }
    const guard = SelectionGuard.fromLocked(locked.protections, locked.barred);
    const selected = await selectQuote(tx, deps, { rfq, winner: quote, quotes, instrument, guard, now });
    return { rfqId: rfq.id, quoteId: quote.id, status: selected.rfq.status, replayed: false, settlementDeadline: selected.rfq.settlement_deadline_secs };
  });
  if (claim) claim.timestampClaimed = true;
  if (outcome.settlementDeadline !== null) deps.hooks.quoteSelected(outcome.rfqId, outcome.settlementDeadline);
  if ('executionId' in outcome && outcome.executionId) deps.hooks.perpAccepted?.(outcome.executionId);
  return { rfqId: outcome.rfqId, quoteId: outcome.quoteId, status: outcome.status, replayed: outcome.replayed };
}
