// Exact decimal strings <-> bigint units for the simulator. Every amount, price and size inside
// the simulator is a bigint scaled by 10^8 (UNIT): 8 is the largest number of decimals the venue
// uses (spot prices, USDC weiDecimals), and a price on its grid times a size on its grid has at
// most 8 decimals, so a notional is exact at the same scale.

export const UNIT_DECIMALS = 8;
export const UNIT = 10n ** 8n;

/** Parses a non-negative (or, with `signed`, signed) decimal string; null when malformed or finer than 10^-8. */
export function parseUnits(text: unknown, options: { signed?: boolean; decimals?: number } = {}): bigint | null {
  if (typeof text !== 'string' || text.length === 0 || text.length > 64) return null;
  const re = options.signed ? /^-?(\d+)(?:\.(\d+))?$/ : /^(\d+)(?:\.(\d+))?$/;
  const m = re.exec(text);
  if (!m) return null;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  const maxDecimals = options.decimals ?? UNIT_DECIMALS;
  if (frac.length > maxDecimals || frac.length > UNIT_DECIMALS) return null;
  const units = BigInt(m[1]! + frac.padEnd(UNIT_DECIMALS, '0'));
  return text.startsWith('-') ? -units : units;
}

/** Formats units as the shortest decimal string (`"100"`, `"0.5"`, `"-3.25"`). */
export function formatUnits(units: bigint): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(UNIT_DECIMALS + 1, '0');
  const int = digits.slice(0, digits.length - UNIT_DECIMALS);
  const frac = digits.slice(digits.length - UNIT_DECIMALS).replace(/0+$/, '');
  const body = frac.length > 0 ? `${int}.${frac}` : int;
  return negative && body !== '0' ? `-${body}` : body;
}

/** Formats like the venue's account figures, which always show a fractional part (`"100.0"`). */
export function formatUnitsFixed(units: bigint): string {
  const s = formatUnits(units);
  return s.includes('.') ? s : `${s}.0`;
}

/** Number of decimals a canonical decimal string carries (trailing zeros already gone). */
export function decimalsOf(text: string): number {
  const i = text.indexOf('.');
  return i < 0 ? 0 : text.length - i - 1;
}

/** Significant figures of a canonical decimal string (leading zeros do not count). */
export function significantFigures(text: string): number {
  return text.replace('.', '').replace(/^0+/, '').length;
}

/** a * b / c rounded down (non-negative operands). */
export function mulDivDown(a: bigint, b: bigint, c: bigint): bigint {
  return (a * b) / c;
}

/** a * b / c rounded up (non-negative operands). */
export function mulDivUp(a: bigint, b: bigint, c: bigint): bigint {
  const p = a * b;
  return p === 0n ? 0n : (p + c - 1n) / c;
}

export function absBig(a: bigint): bigint {
  return a < 0n ? -a : a;
}

export function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
