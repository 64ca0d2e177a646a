/**
 * Taker fee and the amounts derived from it (DESIGN.md section 4, "Fees").
 *
 * The fee is floor(amount * takerFeeTenthBp / 100000) in the pay token's smallest unit, so
 * rounding always favours the taker. BUY: charged on the quote's `makerReceives.amount`
 * (each quote has its own fee). SELL: charged on `baseQty` in the base token, carved out of
 * what the maker buys, so every SELL quote shows the same `takerTotal` (= `baseQty`).
 * PERP: zero here; the venue charges the taker's account (see `RfqTerms.instrumentType`).
 */
import { ServiceError, invalidField } from '../errors.ts';
import { feeFloor, formatAmount } from '../money/index.ts';
import type { Instrument, QuoteLegs, RfqTerms, Side } from './types.ts';

type FeeTerms = Pick<RfqTerms, 'side' | 'baseQty' | 'takerFeeTenthBp' | 'instrumentType'>;

function isPerp(rfq: Pick<RfqTerms, 'instrumentType'>): boolean {
  return rfq.instrumentType === 'PERP';
}

/** Taker fee in the pay token (BUY: quote token; SELL: base token). */
export function takerFee(rfq: FeeTerms, makerReceivesAmount: bigint): bigint {
  if (isPerp(rfq)) return 0n;
  return rfq.side === 'BUY' ? feeFloor(makerReceivesAmount, rfq.takerFeeTenthBp) : feeFloor(rfq.baseQty, rfq.takerFeeTenthBp);
}

/**
 * The base quantity a maker must quote on, as published in `OpenRfq.baseQty`.
 * BUY: the full `baseQty`. SELL: `baseQty - fee`, because the fee is taken from the base
 * the taker delivers.
 */
export function makerBaseQty(rfq: FeeTerms): bigint {
  if (rfq.side === 'BUY' || isPerp(rfq)) return rfq.baseQty;
  return rfq.baseQty - feeFloor(rfq.baseQty, rfq.takerFeeTenthBp);
}

/**
 * The taker's all-in cost in the pay token: `makerReceives.amount + takerFee`; the figure a
 * BUY `quoteLimit` bounds. On a conforming SELL it equals `baseQty`.
 */
export function takerTotal(rfq: FeeTerms, legs: Pick<QuoteLegs, 'makerReceives'>): bigint {
  return legs.makerReceives.amount + takerFee(rfq, legs.makerReceives.amount);
}

/** The token the taker pays in: BUY the quote token, SELL the base token. */
export function takerPayToken(rfq: Pick<RfqTerms, 'side' | 'base' | 'quote'>): string {
  return rfq.side === 'BUY' ? rfq.quote : rfq.base;
}

/**
 * What accepting (or selecting) a spot quote locks from the taker, in `takerPayToken(rfq)`:
 * BUY `takerTotal`; SELL the whole `baseQty` (the maker's leg plus the carved-out fee).
 * @throws RangeError on a PERP: the service locks no funds for a perp, so calling this is a bug.
 */
export function takerLockAmount(rfq: FeeTerms, legs: Pick<QuoteLegs, 'makerReceives'>): bigint {
  if (isPerp(rfq)) throw new RangeError('perp RFQs lock no funds');
  return rfq.side === 'BUY' ? takerTotal(rfq, legs) : rfq.baseQty;
}

/**
 * What an `autoAccept` spot RFQ locks at submission, before any quote exists, in
 * `takerPayToken(rfq)`: BUY the whole `quoteLimit` (the most the taker can be charged, fee
 * included); SELL `baseQty`. At selection the service may release `lock - takerLockAmount`.
 * @throws ServiceError INVALID_REQUEST (`quoteLimit`, `required`) for an autoAccept BUY without
 *   a limit, since nothing would bound what the auto-selected quote costs.
 * @throws RangeError on a PERP (perp autoAccept is refused earlier) or a taker-driven RFQ.
 */
export function submissionLockAmount(rfq: FeeTerms & Pick<RfqTerms, 'autoAccept' | 'quoteLimit'>): bigint {
  if (isPerp(rfq)) throw new RangeError('perp RFQs lock no funds');
  if (!rfq.autoAccept) throw new RangeError('only autoAccept RFQs lock at submission');
  if (rfq.side === 'SELL') return rfq.baseQty;
  if (rfq.quoteLimit === null) {
    throw invalidField('quoteLimit', 'required', 'quoteLimit is required on an autoAccept BUY');
  }
  return rfq.quoteLimit;
}

/**
 * A BUY limit must cover `minQuoteNotional` plus the fee charged on it (spec,
 * CreateRfqRequestInput.quoteLimit). SELL limits and absent limits are not checked: the spec
 * states the rule for a BUY limit only. On a PERP the fee sits outside the limit, so the limit
 * need only cover `minQuoteNotional`, and it must on both sides (DESIGN.md 9.1).
 *
 * `details.minQuoteNotional` is the instrument's own value and `details.minQuoteLimit` the
 * smallest accepted limit, both formatted here as canonical decimal strings in the quote token
 * (the instrument carries `quoteDecimals`), so the details are JSON-safe and need no caller work.
 * @throws ServiceError BELOW_MIN_NOTIONAL
 */
export function minNotionalCheck(
  instrument: Pick<Instrument, 'type' | 'takerFeeTenthBp' | 'minQuoteNotional' | 'quoteDecimals'>,
  side: Side,
  quoteLimit: bigint | null,
): void {
  const minimum = instrument.minQuoteNotional;
  // On a perp the minimum bounds both sides (DESIGN.md 9.1): the venue refuses any order under it.
  if ((side !== 'BUY' && instrument.type !== 'PERP') || quoteLimit === null || minimum === null) return;
  const fee = instrument.type === 'PERP' ? 0n : feeFloor(minimum, instrument.takerFeeTenthBp);
  const minQuoteLimit = minimum + fee;
  if (quoteLimit >= minQuoteLimit) return;
  const minQuoteNotional = formatAmount(minimum, instrument.quoteDecimals);
  throw new ServiceError('BELOW_MIN_NOTIONAL', `quoteLimit must cover minQuoteNotional ${minQuoteNotional} plus the taker fee`, {
    minQuoteNotional,
    minQuoteLimit: formatAmount(minQuoteLimit, instrument.quoteDecimals),
  });
}
