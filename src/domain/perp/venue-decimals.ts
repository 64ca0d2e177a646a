/**
 * The venue's decimal rules for order sizes and prices, on bigints (no floating point). A venue
 * decimal string is canonical: digits, an optional point with digits, no leading zeros, no
 * trailing fractional zeros, no exponent (spec rule 8).
 */
import { amountFormatProblem, formatAmount } from '../money/index.ts';

/** The venue allows `6 - szDecimals` price decimals on a perp (never fewer than 0). */
export function perpPriceDecimals(szDecimals: number): number {
  return Math.max(6 - szDecimals, 0);
}

/** Why `text` is not a canonical venue decimal, or null. */
export function venueDecimalProblem(text: unknown): string | null {
  if (typeof text !== 'string') return 'must be a string';
  const problem = amountFormatProblem(text);
  if (problem !== null) return `is not a plain decimal (${problem})`;
  if (/\.[0-9]*0$/.test(text)) return 'has a trailing zero';
  return null;
}

/** Number of fractional digits of a canonical decimal string. */
export function fractionDigits(text: string): number {
  const point = text.indexOf('.');
  return point === -1 ? 0 : text.length - point - 1;
}

/** A canonical decimal string as an integer count of 10^-scale units; null when finer than scale. */
export function toUnits(text: string, scale: number): bigint | null {
  const digits = fractionDigits(text);
  if (digits > scale) return null;
  const [integerPart = '0', fractionPart = ''] = text.split('.');
  return BigInt(integerPart + fractionPart.padEnd(scale, '0'));
}

/** Significant figures of a positive canonical decimal string. */
export function significantFigures(text: string): number {
  const digits = text.replace('.', '').replace(/^0+/, '');
  return digits.length;
}

/**
 * True when `text` is on the venue's perp price grid: an integer, or at most 5 significant
 * figures and at most `6 - szDecimals` decimals.
 */
export function onPerpPriceGrid(text: string, szDecimals: number): boolean {
  if (!text.includes('.')) return true;
  return fractionDigits(text) <= perpPriceDecimals(szDecimals) && significantFigures(text) <= 5;
}

export interface LegPrice {
  /** The price string, truncated to the venue's price decimals (rule 7). */
  p: string;
  /** `p` in 10^-priceDecimals units. */
  pUnits: bigint;
  priceDecimals: number;
  /** True when `p * s` equals the quote leg exactly. */
  exact: boolean;
  /** True when `p * s` is within one USDC micro-unit (10^-6) of the quote leg. */
  withinMicro: boolean;
}

/**
 * Price `p` from a quote leg and a size (spec rule 7): `quoteLeg / s`, truncated to the venue's
 * price decimals. `quoteLeg` is in 10^-quoteDecimals units, `size` in 10^-baseDecimals units.
 */
export function priceFromLeg(quoteLeg: bigint, quoteDecimals: number, size: bigint, baseDecimals: number, szDecimals: number): LegPrice {
  if (size <= 0n) throw new RangeError('size must be positive');
  const priceDecimals = perpPriceDecimals(szDecimals);
  // p = quoteLeg / 10^qd / (size / 10^bd); in 10^-pd units: quoteLeg * 10^(bd+pd) / (size * 10^qd)
  const numerator = quoteLeg * 10n ** BigInt(baseDecimals + priceDecimals);
  const denominator = size * 10n ** BigInt(quoteDecimals);
  const pUnits = numerator / denominator;
  // |p*s - leg| in 10^-(pd+bd+qd) units, compared with 10^-6 scaled the same way (times 10^6 on both sides).
  const scaledProduct = pUnits * size * 10n ** BigInt(quoteDecimals);
  const scaledLeg = quoteLeg * 10n ** BigInt(priceDecimals + baseDecimals);
  const gap = scaledLeg - scaledProduct;
  const absGap = gap < 0n ? -gap : gap;
  return {
    p: formatAmount(pUnits, priceDecimals),
    pUnits,
    priceDecimals,
    exact: gap === 0n,
    withinMicro: absGap * 1_000_000n <= 10n ** BigInt(priceDecimals + baseDecimals + quoteDecimals),
  };
}
