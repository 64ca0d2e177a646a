/**
 * Quote legs against the RFQ they answer (spec, QuoteLeg; DESIGN.md section 4, "Conforming
 * quote"). Legs are from the maker's side: on a BUY the maker pays base and receives quote; on a
 * SELL the legs swap. The base leg must be exactly the quantity the maker was shown
 * (`makerBaseQty`), because a quote priced on any other quantity cannot be compared or settled.
 */
import { ServiceError } from '../errors.ts';
import { makerBaseQty } from './fees.ts';
import type { QuoteLeg, QuoteLegs, RfqTerms, Side } from './types.ts';

/** Stable `details.reason` values of LEGS_MISMATCH. */
export type LegsMismatchReason = 'instrument' | 'side' | 'token' | 'amount' | 'baseQty';

function mismatch(reason: LegsMismatchReason, field: string, message: string): ServiceError {
  return new ServiceError('LEGS_MISMATCH', message, { reason, field });
}

/**
 * Checks the quote's legs against the RFQ. Order of checks: tokens, then positive amounts, then
 * the base quantity, so the reason names the first thing wrong.
 * @throws ServiceError LEGS_MISMATCH with `details.reason` (`token`, `amount`, `baseQty`) and
 *   `details.field` (`makerPays.token`, `makerReceives.amount`, ...).
 */
export function checkQuoteLegs(
  rfq: Pick<RfqTerms, 'side' | 'baseQty' | 'takerFeeTenthBp' | 'instrumentType' | 'base' | 'quote'>,
  legs: QuoteLegs,
): void {
  const { baseLeg, baseLegName } = checkTokensAndAmounts(rfq, legs);
  if (baseLeg.amount !== makerBaseQty(rfq)) {
    throw mismatch('baseQty', `${baseLegName}.amount`, `${baseLegName}.amount must equal the RFQ's baseQty as shown to makers`);
  }
}

/**
 * The legs of a quote on a SWEEP RFQ: the same checks, except that the base leg may be part of
 * the size, at most `baseQty` (on a SWEEP SELL no base is carved out for the fee, so makers see
 * the full size).
 * @throws ServiceError LEGS_MISMATCH as `checkQuoteLegs`.
 */
export function checkSweepQuoteLegs(rfq: Pick<RfqTerms, 'side' | 'baseQty' | 'base' | 'quote'>, legs: QuoteLegs): void {
  const { baseLeg, baseLegName } = checkTokensAndAmounts(rfq, legs);
  if (baseLeg.amount > rfq.baseQty) {
    throw mismatch('baseQty', `${baseLegName}.amount`, `${baseLegName}.amount must be at most the RFQ's baseQty`);
  }
}

function checkTokensAndAmounts(rfq: Pick<RfqTerms, 'side' | 'base' | 'quote'>, legs: QuoteLegs): { baseLeg: QuoteLeg; baseLegName: 'makerPays' | 'makerReceives' } {
  const [baseLegName, quoteLegName] = rfq.side === 'BUY' ? (['makerPays', 'makerReceives'] as const) : (['makerReceives', 'makerPays'] as const);
  const baseLeg: QuoteLeg = legs[baseLegName];
  const quoteLeg: QuoteLeg = legs[quoteLegName];
  if (baseLeg.token !== rfq.base) {
    throw mismatch('token', `${baseLegName}.token`, `${baseLegName}.token must be ${rfq.base} on a ${rfq.side}`);
  }
  if (quoteLeg.token !== rfq.quote) {
    throw mismatch('token', `${quoteLegName}.token`, `${quoteLegName}.token must be ${rfq.quote} on a ${rfq.side}`);
  }
  for (const name of ['makerPays', 'makerReceives'] as const) {
    if (legs[name].amount <= 0n) throw mismatch('amount', `${name}.amount`, `${name}.amount must be positive`);
  }
  return { baseLeg, baseLegName };
}

/**
 * The quote request names the instrument and side again; they must be the RFQ's.
 * @throws ServiceError LEGS_MISMATCH with `details.reason` `instrument` or `side`.
 */
export function checkQuoteTarget(rfq: { instrumentId: string; side: Side }, request: { instrumentId: string; side: Side }): void {
  if (request.instrumentId !== rfq.instrumentId) {
    throw mismatch('instrument', 'instrumentId', `instrumentId must be the RFQ's (${rfq.instrumentId})`);
  }
  if (request.side !== rfq.side) throw mismatch('side', 'side', `side must be the RFQ's (${rfq.side})`);
}
