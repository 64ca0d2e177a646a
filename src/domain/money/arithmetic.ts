/**
 * Integer arithmetic on smallest units. The rounding direction is in every name.
 */

/** One tenth of a basis point: a rate `r` in tenths of a bp is r / 100000. */
export const TENTH_BP_DENOMINATOR = 100_000n;

export function mulDivDown(value: bigint, multiplier: bigint, divisor: bigint): bigint {
  if (divisor <= 0n) throw new RangeError('divisor must be positive');
  if (value < 0n || multiplier < 0n) throw new RangeError('mulDivDown takes non-negative operands');
  return (value * multiplier) / divisor;
}

export function mulDivUp(value: bigint, multiplier: bigint, divisor: bigint): bigint {
  if (divisor <= 0n) throw new RangeError('divisor must be positive');
  if (value < 0n || multiplier < 0n) throw new RangeError('mulDivUp takes non-negative operands');
  const product = value * multiplier;
  return (product + divisor - 1n) / divisor;
}

/** Taker fee: floor(amount * takerFeeTenthBp / 100000), in the amount's own unit (DESIGN.md section 4). */
export function feeFloor(amount: bigint, takerFeeTenthBp: number): bigint {
  if (!Number.isInteger(takerFeeTenthBp) || takerFeeTenthBp < 0) throw new RangeError('takerFeeTenthBp must be a non-negative integer');
  return mulDivDown(amount, BigInt(takerFeeTenthBp), TENTH_BP_DENOMINATOR);
}

/** Scales an amount between two token precisions, rounding down (never creates units). */
export function rescaleDown(amount: bigint, fromDecimals: number, toDecimals: number): bigint {
  if (toDecimals >= fromDecimals) return amount * 10n ** BigInt(toDecimals - fromDecimals);
  return amount / 10n ** BigInt(fromDecimals - toDecimals);
}

export function minBigint(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
