/**
 * Whether a quote may be accepted or selected now (DESIGN.md section 4, "Conforming quote").
 *
 * Time windows are half-open: a quote is inside its maker window while
 * `now < receivedAt + acceptableForMs`, the same way the auction is open while
 * `now < auctionEndsAt` (spec: accept "before auctionEndsAt"). So `acceptableForMs` = n allows
 * exactly n milliseconds, the minimum of 1 allows the instant `receivedAt` alone, and
 * `acceptDeadline` is one exclusive bound for both windows.
 *
 * Leg consistency is not re-checked here: legs are checked at submission (`checkQuoteLegs`) and
 * an RFQ's terms never change, so a stored quote's legs stay consistent.
 */
import { ServiceError } from '../errors.ts';
import { takerTotal } from './fees.ts';
import type { QuoteTerms, RfqTerms, UnixMillis } from './types.ts';

export type QuoteRefusalReason = 'status' | 'makerWindow' | 'quoteLimit';

export interface QuoteRefusal {
  code: 'QUOTE_NOT_ACCEPTABLE';
  reason: QuoteRefusalReason;
}

type ConformityTerms = Pick<RfqTerms, 'side' | 'baseQty' | 'quoteLimit' | 'takerFeeTenthBp' | 'instrumentType'>;
type ConformityQuote = Pick<QuoteTerms, 'status' | 'makerPays' | 'makerReceives' | 'receivedAt' | 'acceptableForMs'>;

/** True while `now` is inside the quote's own window (always true without one). */
export function insideMakerWindow(quote: Pick<QuoteTerms, 'receivedAt' | 'acceptableForMs'>, now: UnixMillis): boolean {
  return quote.acceptableForMs === null || now < quote.receivedAt + quote.acceptableForMs;
}

/** True when the quote's price is within the taker's `quoteLimit` (always true without one). */
export function withinQuoteLimit(rfq: ConformityTerms, quote: Pick<QuoteTerms, 'makerPays' | 'makerReceives'>): boolean {
  if (rfq.quoteLimit === null) return true;
  return rfq.side === 'BUY' ? takerTotal(rfq, quote) <= rfq.quoteLimit : quote.makerPays.amount >= rfq.quoteLimit;
}

/**
 * Why the quote cannot be accepted or selected at `now`, or null when it conforms. Checks in
 * order status, maker window, quote limit. The auction deadline is not checked here: accept
 * checks it separately (`assertAuctionOpen`, code AUCTION_CLOSED) and the auction close
 * evaluates quotes as of `auctionEndsAt` itself.
 */
export function quoteRefusal(rfq: ConformityTerms, quote: ConformityQuote, now: UnixMillis): QuoteRefusal | null {
  if (quote.status !== 'SUBMITTED') return { code: 'QUOTE_NOT_ACCEPTABLE', reason: 'status' };
  if (!insideMakerWindow(quote, now)) return { code: 'QUOTE_NOT_ACCEPTABLE', reason: 'makerWindow' };
  if (!withinQuoteLimit(rfq, quote)) return { code: 'QUOTE_NOT_ACCEPTABLE', reason: 'quoteLimit' };
  return null;
}

export function isConforming(rfq: ConformityTerms, quote: ConformityQuote, now: UnixMillis): boolean {
  return quoteRefusal(rfq, quote, now) === null;
}

const REFUSAL_MESSAGES: Record<QuoteRefusalReason, string> = {
  status: 'the quote is no longer open',
  makerWindow: "the maker's acceptance window has passed",
  quoteLimit: 'the quote is outside quoteLimit',
};

/** @throws ServiceError QUOTE_NOT_ACCEPTABLE with `details.reason` when the quote does not conform. */
export function assertQuoteAcceptable(rfq: ConformityTerms, quote: ConformityQuote, now: UnixMillis): void {
  const refusal = quoteRefusal(rfq, quote, now);
  if (refusal !== null) throw new ServiceError(refusal.code, REFUSAL_MESSAGES[refusal.reason], { reason: refusal.reason });
}

/**
 * The first instant at which the quote can no longer be accepted (exclusive): the earlier of
 * its maker window's end and the auction close. Useful to schedule expiry and to show makers.
 */
export function acceptDeadline(quote: Pick<QuoteTerms, 'receivedAt' | 'acceptableForMs'>, auctionEndsAt: UnixMillis): UnixMillis {
  if (quote.acceptableForMs === null) return auctionEndsAt;
  return Math.min(quote.receivedAt + quote.acceptableForMs, auctionEndsAt);
}
