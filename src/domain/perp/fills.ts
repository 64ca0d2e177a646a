/**
 * The taker's fill as the RFQ reports it (`perpFilledSize`, `perpFillAvgPx`), summed from the
 * venue's fills of one order. Exact: sizes and prices are parsed into integers at a scale wide
 * enough for any venue size or price, and the average is the notional over the size, truncated.
 */
import { formatAmount, parseAmount } from '../money/index.ts';
import type { VenueFill } from './order-outcome.ts';

/** Venue sizes have at most 8 decimals (spot szDecimals), prices at most 8 (spot MAX_DECIMALS). */
const SCALE = 8;

export interface FillSummary {
  filledSize: string;
  avgPx: string;
}

/** Sums the fills; null when there are none or their size adds up to zero. */
export function summariseFills(fills: readonly Pick<VenueFill, 'px' | 'sz'>[]): FillSummary | null {
  let size = 0n;
  let notional = 0n; // scaled by ONE * ONE
  for (const fill of fills) {
    const sz = parseAmount(fill.sz, SCALE, { field: 'sz' });
    const px = parseAmount(fill.px, SCALE, { field: 'px' });
    size += sz;
    notional += sz * px;
  }
  if (size === 0n) return null;
  return { filledSize: formatAmount(size, SCALE), avgPx: formatAmount(notional / size, SCALE) };
}

/** A venue decimal string in canonical form (no trailing zeros, no exponent). */
export function canonicalVenueDecimal(text: string): string {
  return formatAmount(parseAmount(text, SCALE, { field: 'venue decimal' }), SCALE);
}

/** True when `a` is a positive venue decimal. */
export function isPositiveVenueDecimal(text: string): boolean {
  try {
    return parseAmount(text, SCALE, { field: 'venue decimal' }) > 0n;
  } catch {
    return false;
  }
}

/** `a + b` as decimals, for the maker's fill summed across its order's fills. */
export function addVenueDecimals(a: string, b: string): string {
  return formatAmount(parseAmount(a, SCALE, { field: 'a' }) + parseAmount(b, SCALE, { field: 'b' }), SCALE);
}
