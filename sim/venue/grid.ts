// The venue's tick and lot rules: a price has at most 5 significant figures and at most
// MAX_DECIMALS - szDecimals decimals (MAX_DECIMALS 6 on perps, 8 on spot), an integer price is
// always valid; a size has at most szDecimals decimals.
import { decimalsOf, formatUnits, parseUnits, significantFigures, UNIT, UNIT_DECIMALS } from './decimal.ts';

export const PERP_MAX_DECIMALS = 6;
export const SPOT_MAX_DECIMALS = 8;
const MAX_SIG_FIGS = 5;

export function maxPriceDecimals(szDecimals: number, isSpot: boolean): number {
  return Math.max(0, (isSpot ? SPOT_MAX_DECIMALS : PERP_MAX_DECIMALS) - szDecimals);
}

/** The price in units when it lies on the grid, else null. `text` is canonical (the SDK's schema formatted it). */
export function priceOnGrid(text: string, szDecimals: number, isSpot: boolean): bigint | null {
  const units = parseUnits(text);
  if (units === null || units <= 0n) return null;
  if (units % UNIT === 0n) return units;
  if (decimalsOf(text) > maxPriceDecimals(szDecimals, isSpot)) return null;
  if (significantFigures(text) > MAX_SIG_FIGS) return null;
  return units;
}

/** The size in units when it lies on the lot grid and is positive, else null. */
export function sizeOnGrid(text: string, szDecimals: number): bigint | null {
  const units = parseUnits(text, { decimals: szDecimals });
  return units === null || units <= 0n ? null : units;
}

/** Rounds a price (units) onto the grid, towards `direction`. */
export function roundPriceToGrid(units: bigint, szDecimals: number, isSpot: boolean, direction: 'up' | 'down'): bigint {
  if (units <= 0n) return units;
  const intDigits = (units / UNIT).toString().length;
  let decimals: number;
  if (units >= UNIT) {
    decimals = Math.max(0, MAX_SIG_FIGS - intDigits);
  } else {
    // 0.000123: the first significant digit is at fractional position 4.
    const frac = units.toString().padStart(UNIT_DECIMALS, '0');
    const firstSig = frac.search(/[1-9]/) + 1;
    decimals = firstSig + MAX_SIG_FIGS - 1;
  }
  decimals = Math.min(decimals, maxPriceDecimals(szDecimals, isSpot), UNIT_DECIMALS);
  const step = 10n ** BigInt(UNIT_DECIMALS - decimals);
  const down = (units / step) * step;
  const rounded = direction === 'down' || down === units ? down : down + step;
  // Rounding up can add a digit (99999.5 -> 100000); re-check so the result is on the grid.
  return priceOnGrid(formatUnits(rounded), szDecimals, isSpot) === null
    ? roundPriceToGrid(rounded, szDecimals, isSpot, direction)
    : rounded;
}

/** Rounds a size (units) down onto the lot grid. */
export function roundSizeDown(units: bigint, szDecimals: number): bigint {
  const step = 10n ** BigInt(UNIT_DECIMALS - szDecimals);
  return (units / step) * step;
}
