/**
 * The only code that reads or writes decimal amount strings. Everything inside the service is a
 * `bigint` in the token's smallest unit; strings exist only at the edges (HTTP, WS, CLI).
 *
 * Grammar (spec, Conventions): `0` or a non-zero-led integer, optionally `.` and one or more
 * digits; at most 64 characters. Output is canonical: no trailing fractional zeros, no point
 * for integers. Over-precision is refused (`AMOUNT_OVER_PRECISE`), never truncated.
 */
import { ServiceError, invalidField } from '../errors.ts';

export const MAX_AMOUNT_LENGTH = 64;
/** The largest amount in smallest units: a uint256, what a token transfer can carry (and within NUMERIC(78,0)). */
export const MAX_RAW_AMOUNT = (1n << 256n) - 1n;

/** Stable reasons for a malformed amount string, reported in `details.errors[].reason`. */
export type AmountFormatReason =
  | 'type'
  | 'empty'
  | 'tooLong'
  | 'whitespace'
  | 'leadingPlus'
  | 'negative'
  | 'exponent'
  | 'separator'
  | 'leadingZeros'
  | 'missingIntegerDigits'
  | 'missingFractionalDigits'
  | 'notDecimal'
  | 'zero'
  | 'tooLarge';

const CANONICAL_INPUT = /^(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** Why `text` is not a DecimalString, or null when it is one. Pure, no throwing. */
export function amountFormatProblem(text: unknown, allowNegative = false): AmountFormatReason | null {
  if (typeof text !== 'string') return 'type';
  // The canonical form passes every check below: one test for the common case (every quote's
  // two legs), the checks only to name what is wrong with the rest.
  if (text.length <= MAX_AMOUNT_LENGTH && CANONICAL_INPUT.test(text)) return null;
  if (text.length === 0) return 'empty';
  if (text.length > MAX_AMOUNT_LENGTH) return 'tooLong';
  if (/\s/.test(text)) return 'whitespace';
  let body = text;
  if (body.startsWith('-')) {
    if (!allowNegative) return 'negative';
    body = body.slice(1);
  }
  if (body.startsWith('+')) return 'leadingPlus';
  if (/[eE]/.test(body)) return 'exponent';
  if (/[,_]/.test(body)) return 'separator';
  if (body.startsWith('.')) return 'missingIntegerDigits';
  if (body.endsWith('.')) return 'missingFractionalDigits';
  if (/^0[0-9]/.test(body)) return 'leadingZeros';
  if (!CANONICAL_INPUT.test(body)) return 'notDecimal';
  return null;
}

const REASON_MESSAGES: Record<AmountFormatReason, string> = {
  type: 'must be a decimal string',
  empty: 'must not be empty',
  tooLong: `must be at most ${MAX_AMOUNT_LENGTH} characters`,
  whitespace: 'must not contain whitespace',
  leadingPlus: 'must not have a leading plus sign',
  negative: 'must not be negative',
  exponent: 'must not use scientific notation',
  separator: 'must not contain separators',
  leadingZeros: 'must not have unnecessary leading zeros',
  missingIntegerDigits: 'must have integer digits before the point',
  missingFractionalDigits: 'must have digits after the point',
  notDecimal: 'must be a decimal number',
  zero: 'must be greater than zero',
  tooLarge: 'must be at most 2^256 - 1 in smallest units',
};

export interface ParseAmountOptions {
  /** Request path of the value, for error reporting (`baseQty`, `makerPays.amount`). */
  field: string;
  /** Zero and zero-equivalents are refused (PositiveDecimalString). */
  positive?: boolean;
  /** A leading `-` is allowed (signed adjustments). */
  signed?: boolean;
}

/**
 * Parses a decimal string in human units into smallest units with `decimals` places.
 * @throws ServiceError INVALID_REQUEST (malformed) or AMOUNT_OVER_PRECISE (too many digits).
 */
export function parseAmount(text: unknown, decimals: number, options: ParseAmountOptions): bigint {
  const problem = amountFormatProblem(text, options.signed === true);
  if (problem !== null) throw invalidField(options.field, problem, `${options.field} ${REASON_MESSAGES[problem]}`);
  const raw = text as string;
  const negative = raw.startsWith('-');
  const body = negative ? raw.slice(1) : raw;
  const [integerPart = '0', fractionPart = ''] = body.split('.');
  const significantFraction = fractionPart.replace(/0+$/, '');
  if (significantFraction.length > decimals) {
    throw new ServiceError('AMOUNT_OVER_PRECISE', `${options.field} has more than ${decimals} decimal places`, {
      field: options.field,
      maxDecimals: decimals,
    });
  }
  const units = BigInt(integerPart + significantFraction.padEnd(decimals, '0'));
  if (units > MAX_RAW_AMOUNT) throw invalidField(options.field, 'tooLarge', `${options.field} ${REASON_MESSAGES.tooLarge}`);
  if (options.positive === true && units === 0n) {
    throw invalidField(options.field, 'zero', `${options.field} ${REASON_MESSAGES.zero}`);
  }
  return negative ? -units : units;
}

/** Formats smallest units as the canonical decimal string (signed when negative). */
export function formatAmount(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const integerPart = digits.slice(0, digits.length - decimals);
  const fractionPart = digits.slice(digits.length - decimals).replace(/0+$/, '');
  const body = fractionPart.length > 0 ? `${integerPart}.${fractionPart}` : integerPart;
  return negative ? `-${body}` : body;
}

/** Normalises a decimal string without a token scale (any number of places), for prices and sizes. */
export function canonicalDecimal(text: string, field: string, maxDecimals = 36): string {
  return formatAmount(parseAmount(text, maxDecimals, { field }), maxDecimals);
}
