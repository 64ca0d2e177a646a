/**
 * The price band (operator setting `ladderBandBps`): every level of a maker's ladder must lie
 * within that many basis points of the instrument's reference price (its last trade), so that no
 * maker can put an absurd price (a bid of 10^71) on the public `prices` topic. Without a reference
 * (an instrument that has never traded) or with the band set to 0, ladders are not banded.
 */
import { ServiceError, type FieldError } from '../errors.ts';
import { formatAmount } from '../money/decimal.ts';
import type { Level } from './ladder.ts';
import { PRICE_DECIMALS } from './ladder.ts';

export interface PriceBand {
  /** The reference price, scaled by 10^PRICE_DECIMALS. */
  reference: bigint;
  bandBps: number;
}

/** The band's inclusive bounds: the reference less and plus `bandBps`, the lower rounded up, the upper down. */
export function bandLimits(band: PriceBand): { min: bigint; max: bigint } {
  const bps = BigInt(band.bandBps);
  const low = band.reference * (10_000n - bps);
  return { min: bps >= 10_000n ? 1n : (low + 9_999n) / 10_000n, max: (band.reference * (10_000n + bps)) / 10_000n };
}

/**
 * Refuses a ladder with any level outside the band: INVALID_REQUEST, each level `outsideBand`,
 * the details naming the reference and the bounds as decimals.
 */
export function checkLadderBand(sides: { bids: readonly Level[]; asks: readonly Level[] }, band: PriceBand | null): void {
  if (band === null || band.bandBps === 0) return;
  const { min, max } = bandLimits(band);
  const errors: FieldError[] = [];
  for (const side of ['bids', 'asks'] as const) {
    sides[side].forEach((level, i) => {
      if (level.price < min || level.price > max) {
        errors.push({ field: `${side}[${i}][0]`, reason: 'outsideBand', message: `${side}[${i}] price must be within ${band.bandBps} bp of the last trade, ${format(min)} to ${format(max)}` });
      }
    });
  }
  if (errors.length === 0) return;
  throw new ServiceError('INVALID_REQUEST', errors[0]!.message, { errors, reference: format(band.reference), bandBps: band.bandBps, min: format(min), max: format(max) });
}

function format(price: bigint): string {
  return formatAmount(price, PRICE_DECIMALS);
}

/**
 * The price of a trade in the ladder's terms (quote token per one base unit, scaled by
 * 10^PRICE_DECIMALS), from the winning quote's legs: on a BUY the maker pays base and receives
 * quote, on a SELL the reverse. The taker's fee is not in the quote's price.
 */
export function tradePrice(decimals: { baseDecimals: number; quoteDecimals: number }, side: 'BUY' | 'SELL', legs: { makerPays: bigint; makerReceives: bigint }): bigint | null {
  const [base, quote] = side === 'BUY' ? [legs.makerPays, legs.makerReceives] : [legs.makerReceives, legs.makerPays];
  if (base <= 0n) return null;
  return (quote * 10n ** BigInt(PRICE_DECIMALS + decimals.baseDecimals)) / (base * 10n ** BigInt(decimals.quoteDecimals));
}
