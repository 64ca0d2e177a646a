/**
 * The taker's fill as the RFQ reports it (`perpFilledSize`, `perpFillAvgPx`), summed from the
 * venue's fills of one order. Exact: sizes and prices are parsed into integers at a scale wide
 * enough for any venue size or price, and the average is the notional over the size, truncated.
 */
import { formatAmount, parseAmount } from '../money/index.ts';
import type { VenueFill } from './order-outcome.ts';

/** Venue sizes have at most 8 decimals (spot szDecimals), prices at most 8 (spot MAX_DECIMALS). */
const SCALE = 8;

/**
 * How far before our own send time a fill read (`userFillsByTime`) starts: the venue stamps fills
 * by its clock, which may be behind ours by as much as the request skew we accept (30 s). Reads
 * are filtered by order (cloid, oid) or deduplicated, so a wider window costs rows, not accuracy.
 * (The simulation's seed 9608: with our clock 9.8 s ahead, a read from one second before the send
 * missed the fill of an order whose reply was lost, and the trade ended FAILED while filled.)
 */
export const FILL_CLOCK_SLACK_MS = 30_000;

/** True when an order record (`orderStatus`) shows part of it filled: its remaining size below its original. */
export function orderPartFilled(origSz: string, sz: string): boolean {
  return parseAmount(origSz, SCALE, { field: 'origSz' }) > parseAmount(sz, SCALE, { field: 'sz' });
}

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
