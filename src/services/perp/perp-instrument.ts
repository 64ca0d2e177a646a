/**
 * Operator registration of a PERP instrument (DESIGN.md 9.1): `base` must be a coin of the
 * venue's `meta.universe` by exact name, `quote` USDC, `takerFeeTenthBp` 0..100 (the venue caps a
 * perp builder fee at 0.1 %), `minQuoteNotional` at least 10 USDC (the venue's minimum order
 * value), so no perp trade can fall under the venue's minimum. Checked before anything is written.
 */
import { ServiceError, invalidRequest, type FieldError } from '../../domain/errors.ts';
import { amountFormatProblem, parseAmount } from '../../domain/money/index.ts';
import { PERP_BASE_DECIMALS } from '../../domain/perp/types.ts';
import type { ServiceDeps } from '../deps.ts';
import { fromVenue, requireVenue } from './venue-market.ts';
import { findCoin } from './venue-port.ts';

export const PERP_QUOTE_TOKEN = 'USDC';
export const PERP_MAX_FEE_TENTH_BP = 100;
/** The venue's minimum order value, in USDC (6 decimals). */
export const PERP_MIN_QUOTE_NOTIONAL_UNITS = 10_000_000n;

export interface PerpInstrumentInput {
  base: string;
  quote: string;
  takerFeeTenthBp: number;
  minQuoteNotional?: string | null;
}

export async function checkPerpInstrument(deps: ServiceDeps, input: PerpInstrumentInput): Promise<void> {
  const venue = requireVenue(deps);
  const errors: FieldError[] = [];
  if (input.quote !== PERP_QUOTE_TOKEN) errors.push({ field: 'quote', reason: 'perpQuote', message: `a perp's quote must be ${PERP_QUOTE_TOKEN}` });
  if (input.takerFeeTenthBp > PERP_MAX_FEE_TENTH_BP) {
    errors.push({ field: 'takerFeeTenthBp', reason: 'maximum', message: `a perp's takerFeeTenthBp is at most ${PERP_MAX_FEE_TENTH_BP} (the venue caps a perp builder fee at 0.1 %)` });
  }
  const min = input.minQuoteNotional;
  if (min === undefined || min === null) {
    errors.push({ field: 'minQuoteNotional', reason: 'required', message: "a perp needs minQuoteNotional, at least 10 (the venue's minimum order value)" });
  } else if (amountFormatProblem(min) === null && parseAmount(min, 6, { field: 'minQuoteNotional' }) < PERP_MIN_QUOTE_NOTIONAL_UNITS) {
    errors.push({ field: 'minQuoteNotional', reason: 'minimum', message: "a perp's minQuoteNotional is at least 10 (the venue's minimum order value)" });
  }
  if (errors.length > 0) throw invalidRequest(errors, errors[0]!.message);
  // Read fresh, not from the quote path's cache: a coin listed a moment ago is registrable at once
  // (and the read refreshes that cache for the quotes that follow).
  const meta = await fromVenue('meta', () => venue.freshMeta());
  const coin = findCoin(meta, input.base);
  if (coin === null || coin.isDelisted) {
    throw new ServiceError('VENUE_COIN_NOT_FOUND', `${input.base} is not a ${coin ? 'listed ' : ''}coin in the venue's meta universe (exact name)`, { base: input.base });
  }
  if (coin.szDecimals > PERP_BASE_DECIMALS) {
    throw new ServiceError('VENUE_COIN_NOT_FOUND', `${input.base} has ${coin.szDecimals} size decimals, more than this service supports (${PERP_BASE_DECIMALS})`, { base: input.base });
  }
}
