/**
 * The venue's spot grids and the `/v0` number rules (DESIGN.md section 10), pure. Request amounts
 * and prices are human decimals; they are scaled exactly and refused when off the grid, never
 * rounded. Prices are carried x 10^8, order sizes x 10^weiDecimals of the base token.
 */
import { amountFormatProblem } from '../money/decimal.ts';
import { ServiceError } from '../errors.ts';

export const PRICE_DECIMALS = 8;
/** The venue's price rule: at most 5 significant figures. */
export const MAX_PRICE_SIGNIFICANT_FIGURES = 5;

export function validationError(field: string, message: string): ServiceError {
  return new ServiceError('VALIDATION_ERROR', `${field} ${message}`, { field });
}

/** A human decimal string scaled to `decimals` places; VALIDATION_ERROR when malformed, zero or finer than `decimals`. */
export function parseV0Decimal(text: unknown, decimals: number, field: string): bigint {
  const problem = amountFormatProblem(text);
  if (problem !== null) throw validationError(field, `must be a plain positive decimal string (${problem})`);
  const [integerPart = '0', fractionPart = ''] = (text as string).split('.');
  const significant = fractionPart.replace(/0+$/, '');
  if (significant.length > decimals) throw validationError(field, `has more than ${decimals} decimal places`);
  const units = BigInt(integerPart + significant.padEnd(decimals, '0'));
  if (units === 0n) throw validationError(field, 'must be greater than zero');
  return units;
}

function significantFigures(units: bigint): number {
  return units.toString().replace(/0+$/, '').length;
}

/** A spot limit price x 10^8 on the venue's grid: <= 5 significant figures and <= 8 - szDecimals decimals. */
export function parseSpotPrice(text: unknown, szDecimals: number, field = 'price'): bigint {
  const maxDecimals = PRICE_DECIMALS - szDecimals;
  const price = parseV0Decimal(text, maxDecimals, field);
  const scaled = price * 10n ** BigInt(PRICE_DECIMALS - maxDecimals);
  if (significantFigures(scaled) > MAX_PRICE_SIGNIFICANT_FIGURES) throw validationError(field, `has more than ${MAX_PRICE_SIGNIFICANT_FIGURES} significant figures`);
  return scaled;
}

/** An order size x 10^weiDecimals on the size grid (szDecimals places). */
export function parseSpotSize(text: unknown, szDecimals: number, weiDecimals: number, field = 'amount'): bigint {
  return parseV0Decimal(text, szDecimals, field) * 10n ** BigInt(weiDecimals - szDecimals);
}

/** Rounds a price x 10^8 to the grid, down for a sell limit and up for a buy limit (market orders' slippage price). */
export function priceToGrid(price: bigint, szDecimals: number, direction: 'up' | 'down'): bigint {
  const tickDecimals = PRICE_DECIMALS - szDecimals;
  let step = 10n ** BigInt(PRICE_DECIMALS - tickDecimals);
  // 5 significant figures: the step grows with the magnitude.
  const digits = price.toString().length;
  if (digits > MAX_PRICE_SIGNIFICANT_FIGURES) {
    const sigStep = 10n ** BigInt(digits - MAX_PRICE_SIGNIFICANT_FIGURES);
    if (sigStep > step) step = sigStep;
  }
  const floor = (price / step) * step;
  if (direction === 'down' || floor === price) return floor;
  return floor + step;
}

/** `units` with `decimals` places as the venue's decimal string (no exponent, no trailing zeros). */
export function venueDecimal(units: bigint, decimals: number): string {
  const digits = units.toString().padStart(decimals + 1, '0');
  const integerPart = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction.length > 0 ? `${integerPart}.${fraction}` : integerPart;
}

/** A venue decimal string as units with `decimals` places, rounded down (against the holder). */
export function venueUnitsDown(text: string, decimals: number): bigint {
  if (!/^\d+(\.\d+)?$/.test(text)) throw new Error(`not a venue decimal: ${text}`);
  const [integerPart = '0', fractionPart = ''] = text.split('.');
  return BigInt(integerPart + fractionPart.slice(0, decimals).padEnd(decimals, '0'));
}

/** A venue decimal string as units with `decimals` places, rounded up. */
export function venueUnitsUp(text: string, decimals: number): bigint {
  const down = venueUnitsDown(text, decimals);
  const rest = (text.split('.')[1] ?? '').slice(decimals);
  return /[1-9]/.test(rest) ? down + 1n : down;
}
