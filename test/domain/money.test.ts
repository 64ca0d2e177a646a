import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ServiceError } from '../../src/domain/errors.ts';
import {
  MAX_AMOUNT_LENGTH,
  TENTH_BP_DENOMINATOR,
  amountFormatProblem,
  canonicalDecimal,
  feeFloor,
  formatAmount,
  minBigint,
  mulDivDown,
  mulDivUp,
  parseAmount,
  rescaleDown,
} from '../../src/domain/money/index.ts';

/** Canonical output: `0` or non-zero-led integer, optional point and digits not ending in 0. */
const CANONICAL_OUTPUT = /^-?(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$/;

const decimalsArb = fc.integer({ min: 0, max: 30 });
/** Up to 10^33 keeps every formatted value (sign, 34 digits, point) well inside 64 characters. */
const unitsArb = fc.bigInt(0n, 10n ** 33n);

function fieldErrorOf(fn: () => unknown): { code: string; field: string; reason: string } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ServiceError, 'expected a ServiceError');
    const errors = error.details?.['errors'] as { field: string; reason: string }[] | undefined;
    assert.ok(Array.isArray(errors) && errors.length === 1, 'expected one field error');
    const [first] = errors;
    assert.ok(first !== undefined);
    return { code: error.code, field: first.field, reason: first.reason };
  }
  assert.fail('expected a throw');
}

describe('formatAmount / parseAmount', () => {
  it('round-trips parse(format(x)) = x for any non-negative amount and 0..30 decimals', () => {
    fc.assert(
      fc.property(unitsArb, decimalsArb, (units, decimals) => {
        assert.equal(parseAmount(formatAmount(units, decimals), decimals, { field: 'amount' }), units);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips signed amounts with { signed: true }', () => {
    fc.assert(
      fc.property(fc.bigInt(-(10n ** 33n), 10n ** 33n), decimalsArb, (units, decimals) => {
        assert.equal(parseAmount(formatAmount(units, decimals), decimals, { field: 'delta', signed: true }), units);
      }),
    );
  });

  it('always formats to the canonical output grammar', () => {
    fc.assert(
      fc.property(fc.bigInt(-(10n ** 40n), 10n ** 40n), decimalsArb, (units, decimals) => {
        const text = formatAmount(units, decimals);
        assert.match(text, CANONICAL_OUTPUT);
        assert.doesNotMatch(text, /^-0$/);
      }),
      { numRuns: 2000 },
    );
  });

  it('formats known values', () => {
    const cases: [bigint, number, string][] = [
      [0n, 0, '0'],
      [0n, 6, '0'],
      [1n, 0, '1'],
      [1n, 6, '0.000001'],
      [1_500_000n, 6, '1.5'],
      [1_000_000n, 6, '1'],
      [10_000_000n, 6, '10'],
      [123_456_789n, 3, '123456.789'],
      [-2_500n, 3, '-2.5'],
      [10n ** 30n, 30, '1'],
    ];
    for (const [units, decimals, expected] of cases) assert.equal(formatAmount(units, decimals), expected, `${units}@${decimals}`);
  });

  it('accepts equivalent trailing zeros and normalises them', () => {
    const cases: [string, number, bigint, string][] = [
      ['1.0', 6, 1_000_000n, '1'],
      ['0.000', 6, 0n, '0'],
      ['0.0', 0, 0n, '0'],
      ['1.50', 2, 150n, '1.5'],
      ['1.500000000', 6, 1_500_000n, '1.5'],
      ['7.000000000000000000000000000000000000', 0, 7n, '7'],
    ];
    for (const [text, decimals, units, canonical] of cases) {
      const parsed = parseAmount(text, decimals, { field: 'amount' });
      assert.equal(parsed, units, text);
      assert.equal(formatAmount(parsed, decimals), canonical, text);
    }
  });

  it('accepts any string of trailing zeros after a canonical value', () => {
    fc.assert(
      fc.property(unitsArb, decimalsArb, fc.integer({ min: 1, max: 10 }), (units, decimals, zeros) => {
        const canonical = formatAmount(units, decimals);
        const padded = canonical.includes('.') ? canonical + '0'.repeat(zeros) : `${canonical}.${'0'.repeat(zeros)}`;
        fc.pre(padded.length <= MAX_AMOUNT_LENGTH);
        assert.equal(parseAmount(padded, decimals, { field: 'amount' }), units);
      }),
    );
  });

  it('accepts exactly 64 characters and refuses 65', () => {
    const ok = '1'.repeat(MAX_AMOUNT_LENGTH);
    assert.equal(parseAmount(ok, 0, { field: 'amount' }), BigInt(ok));
    assert.equal(fieldErrorOf(() => parseAmount(`${ok}1`, 0, { field: 'amount' })).reason, 'tooLong');
    assert.equal(fieldErrorOf(() => parseAmount(`0.${'0'.repeat(63)}`, 6, { field: 'amount' })).reason, 'tooLong');
  });

  const rejected: [unknown, string][] = [
    ['+1', 'leadingPlus'],
    ['+0.5', 'leadingPlus'],
    ['01', 'leadingZeros'],
    ['00', 'leadingZeros'],
    ['00.1', 'leadingZeros'],
    ['007.5', 'leadingZeros'],
    [' 1', 'whitespace'],
    ['1 ', 'whitespace'],
    ['1 000', 'whitespace'],
    ['1\t', 'whitespace'],
    ['\n1', 'whitespace'],
    ['1.\u00a05', 'whitespace'],
    ['1e5', 'exponent'],
    ['1E5', 'exponent'],
    ['1.5e-3', 'exponent'],
    ['.5', 'missingIntegerDigits'],
    ['.', 'missingIntegerDigits'],
    ['5.', 'missingFractionalDigits'],
    ['-1', 'negative'],
    ['-0.5', 'negative'],
    ['1,000', 'separator'],
    ['1_000', 'separator'],
    ['', 'empty'],
    ['abc', 'notDecimal'],
    ['0x10', 'notDecimal'],
    ['1.2.3', 'notDecimal'],
    ['Infinity', 'notDecimal'],
    ['NaN', 'notDecimal'],
    ['١', 'notDecimal'],
    [1, 'type'],
    [1n, 'type'],
    [null, 'type'],
    [undefined, 'type'],
    [{}, 'type'],
  ];
  for (const [input, reason] of rejected) {
    it(`rejects ${typeof input === 'string' ? JSON.stringify(input) : `${typeof input} ${String(input)}`} with reason ${reason}`, () => {
      assert.equal(amountFormatProblem(input), reason);
      const error = fieldErrorOf(() => parseAmount(input, 6, { field: 'baseQty' }));
      assert.deepEqual(error, { code: 'INVALID_REQUEST', field: 'baseQty', reason });
    });
  }

  it('rejects zero and zero-equivalents for positive fields only', () => {
    for (const text of ['0', '0.0', '0.000000', '0.0000000000']) {
      assert.deepEqual(fieldErrorOf(() => parseAmount(text, 6, { field: 'quoteLimit', positive: true })), {
        code: 'INVALID_REQUEST',
        field: 'quoteLimit',
        reason: 'zero',
      });
      assert.equal(parseAmount(text, 6, { field: 'balance' }), 0n);
    }
    assert.equal(parseAmount('0.000001', 6, { field: 'quoteLimit', positive: true }), 1n);
  });

  it('refuses over-precise values with AMOUNT_OVER_PRECISE and details.maxDecimals, never truncating', () => {
    const cases: [string, number][] = [
      ['1.2345678', 6],
      ['0.0000001', 6],
      ['1.5', 0],
      ['0.10000000000000000001', 18],
    ];
    for (const [text, decimals] of cases) {
      assert.throws(
        () => parseAmount(text, decimals, { field: 'makerPays.amount' }),
        (error: unknown) =>
          error instanceof ServiceError &&
          error.code === 'AMOUNT_OVER_PRECISE' &&
          error.details?.['maxDecimals'] === decimals &&
          error.details['field'] === 'makerPays.amount',
        text,
      );
    }
  });

  it('checks the format before precision (a malformed over-precise value is INVALID_REQUEST)', () => {
    assert.equal(fieldErrorOf(() => parseAmount('01.1234567', 6, { field: 'amount' })).reason, 'leadingZeros');
  });

  it('over-precision property: one more significant digit than allowed is always refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 29 }), fc.integer({ min: 1, max: 9 }), (decimals, digit) => {
        const text = `0.${'0'.repeat(decimals)}${digit}`;
        assert.throws(() => parseAmount(text, decimals, { field: 'amount' }), { code: 'AMOUNT_OVER_PRECISE' });
        assert.equal(parseAmount(text, decimals + 1, { field: 'amount' }), BigInt(digit));
      }),
    );
  });

  it('allows a leading minus only when signed', () => {
    assert.equal(parseAmount('-1.5', 2, { field: 'delta', signed: true }), -150n);
    assert.equal(fieldErrorOf(() => parseAmount('-+1', 2, { field: 'delta', signed: true })).reason, 'leadingPlus');
    assert.equal(fieldErrorOf(() => parseAmount('-01', 2, { field: 'delta', signed: true })).reason, 'leadingZeros');
  });

  it('canonicalDecimal normalises scale-free decimals', () => {
    assert.equal(canonicalDecimal('1.2500', 'price'), '1.25');
    assert.equal(canonicalDecimal('100', 'price'), '100');
    assert.equal(canonicalDecimal('0.000', 'price'), '0');
  });
});

describe('mulDivDown / mulDivUp / feeFloor', () => {
  const nonNegative = fc.bigInt(0n, 2n ** 200n);
  const divisorArb = fc.bigInt(1n, 2n ** 100n);

  it('mulDivDown is the floor: q*d <= v*m < (q+1)*d, never negative', () => {
    fc.assert(
      fc.property(nonNegative, nonNegative, divisorArb, (value, multiplier, divisor) => {
        const q = mulDivDown(value, multiplier, divisor);
        assert.ok(q >= 0n);
        assert.ok(q * divisor <= value * multiplier);
        assert.ok(value * multiplier < (q + 1n) * divisor);
      }),
      { numRuns: 1000 },
    );
  });

  it('mulDivUp is the ceiling: (u-1)*d < v*m <= u*d, and up - down is 0 or 1', () => {
    fc.assert(
      fc.property(nonNegative, nonNegative, divisorArb, (value, multiplier, divisor) => {
        const up = mulDivUp(value, multiplier, divisor);
        const down = mulDivDown(value, multiplier, divisor);
        assert.ok(up >= 0n);
        assert.ok(value * multiplier <= up * divisor);
        assert.ok((up - 1n) * divisor < value * multiplier);
        const exact = (value * multiplier) % divisor === 0n;
        assert.equal(up - down, exact ? 0n : 1n);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses negative operands and non-positive divisors', () => {
    for (const fn of [mulDivDown, mulDivUp]) {
      assert.throws(() => fn(-1n, 1n, 1n), RangeError);
      assert.throws(() => fn(1n, -1n, 1n), RangeError);
      assert.throws(() => fn(1n, 1n, 0n), RangeError);
      assert.throws(() => fn(1n, 1n, -5n), RangeError);
    }
  });

  it('feeFloor: floor <= exact < floor+1 by cross-multiplication, never negative, never above the amount', () => {
    fc.assert(
      fc.property(fc.bigInt(0n, 10n ** 40n), fc.integer({ min: 0, max: 100_000 }), (amount, rate) => {
        const fee = feeFloor(amount, rate);
        const scaled = amount * BigInt(rate);
        assert.ok(fee >= 0n);
        assert.ok(fee * TENTH_BP_DENOMINATOR <= scaled);
        assert.ok(scaled < (fee + 1n) * TENTH_BP_DENOMINATOR);
        assert.ok(fee <= amount);
      }),
      { numRuns: 1000 },
    );
  });

  it('feeFloor known values (rate in tenths of a basis point)', () => {
    assert.equal(feeFloor(1_000_000n, 25), 250n); // 2.5 bp of 1.000000
    assert.equal(feeFloor(39_999n, 25), 9n); // 9.99975 rounds down
    assert.equal(feeFloor(3_999n, 25), 0n);
    assert.equal(feeFloor(123n, 0), 0n);
    assert.equal(feeFloor(0n, 100), 0n);
    assert.equal(feeFloor(7n, 100_000), 7n);
  });

  it('feeFloor refuses a non-integer or negative rate', () => {
    assert.throws(() => feeFloor(1n, 1.5), RangeError);
    assert.throws(() => feeFloor(1n, -1), RangeError);
    assert.throws(() => feeFloor(1n, Number.NaN), RangeError);
  });

  it('rescaleDown never creates units and is exact when scaling up', () => {
    fc.assert(
      fc.property(fc.bigInt(0n, 10n ** 40n), fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 }), (amount, from, to) => {
        const scaled = rescaleDown(amount, from, to);
        assert.ok(scaled >= 0n);
        // Back in the original scale, the result is never more than the input.
        if (to >= from) assert.equal(rescaleDown(scaled, to, from), amount);
        else assert.ok(scaled * 10n ** BigInt(from - to) <= amount);
      }),
    );
    assert.equal(rescaleDown(1_999_999n, 6, 0), 1n);
    assert.equal(rescaleDown(15n, 1, 3), 1500n);
  });

  it('minBigint', () => {
    assert.equal(minBigint(1n, 2n), 1n);
    assert.equal(minBigint(2n, -1n), -1n);
    assert.equal(minBigint(3n, 3n), 3n);
  });
});
