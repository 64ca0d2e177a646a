import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ServiceError } from '../../../src/domain/errors.ts';
import { MIN_WINDOW_MS, auctionWindowMs, quoteAcceptableForMs, settlementDeadlineSecs } from '../../../src/domain/rfq/index.ts';

const MAX = 30_000;

function invalid(field: string, reason: string) {
  return (error: unknown) => {
    if (!(error instanceof ServiceError) || error.code !== 'INVALID_REQUEST') return false;
    const errors = error.details?.['errors'] as { field: string; reason: string }[];
    return errors.length === 1 && errors[0]?.field === field && errors[0].reason === reason;
  };
}

describe('auctionWindowMs', () => {
  it('omitted (or null) means maxWindowMs', () => {
    assert.equal(auctionWindowMs({}, MAX), MAX);
    assert.equal(auctionWindowMs({ windowMs: null, windowSecs: null }, MAX), MAX);
    assert.equal(auctionWindowMs({ windowMs: undefined }, MAX), MAX);
  });

  const clamps: [string, { windowMs?: number; windowSecs?: number }, number][] = [
    ['windowMs inside the range', { windowMs: 5_000 }, 5_000],
    ['windowMs at the floor', { windowMs: 1_000 }, 1_000],
    ['windowMs under 1 s is raised to 1 s', { windowMs: 1 }, 1_000],
    ['windowMs 999 is raised to 1 s', { windowMs: 999 }, 1_000],
    ['windowMs at the max', { windowMs: MAX }, MAX],
    ['windowMs over the max is lowered', { windowMs: MAX + 1 }, MAX],
    ['windowSecs 1 is 1 s', { windowSecs: 1 }, 1_000],
    ['windowSecs inside the range', { windowSecs: 12 }, 12_000],
    ['windowSecs over the max', { windowSecs: 31 }, MAX],
    ['huge windowSecs', { windowSecs: Number.MAX_SAFE_INTEGER }, MAX],
  ];
  for (const [name, request, expected] of clamps) {
    it(name, () => assert.equal(auctionWindowMs(request, MAX), expected));
  }

  it('property: the result is always inside [1 s, max]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10 ** 9 }), fc.integer({ min: MIN_WINDOW_MS, max: 10 ** 7 }), (windowMs, max) => {
        const result = auctionWindowMs({ windowMs }, max);
        assert.ok(result >= MIN_WINDOW_MS && result <= max);
        if (windowMs >= MIN_WINDOW_MS && windowMs <= max) assert.equal(result, windowMs);
      }),
    );
  });

  it('both fields sent is INVALID_REQUEST windowMs/exclusive', () => {
    assert.throws(() => auctionWindowMs({ windowMs: 5_000, windowSecs: 5 }, MAX), invalid('windowMs', 'exclusive'));
  });

  const bad: [string, { windowMs?: number; windowSecs?: number }, string, string][] = [
    ['windowMs zero', { windowMs: 0 }, 'windowMs', 'positive'],
    ['windowMs negative', { windowMs: -5 }, 'windowMs', 'positive'],
    ['windowMs fractional', { windowMs: 1500.5 }, 'windowMs', 'integer'],
    ['windowMs NaN', { windowMs: Number.NaN }, 'windowMs', 'integer'],
    ['windowMs Infinity', { windowMs: Number.POSITIVE_INFINITY }, 'windowMs', 'integer'],
    ['windowMs beyond safe integers', { windowMs: 2 ** 60 }, 'windowMs', 'integer'],
    ['windowSecs zero', { windowSecs: 0 }, 'windowSecs', 'positive'],
    ['windowSecs fractional', { windowSecs: 1.5 }, 'windowSecs', 'integer'],
    ['windowSecs negative', { windowSecs: -1 }, 'windowSecs', 'positive'],
  ];
  for (const [name, request, field, reason] of bad) {
    it(`refuses ${name} (${field}/${reason})`, () => assert.throws(() => auctionWindowMs(request, MAX), invalid(field, reason)));
  }

  it('refuses a bad maxWindowMs as a configuration bug', () => {
    assert.throws(() => auctionWindowMs({}, 999), RangeError);
    assert.throws(() => auctionWindowMs({}, 1_500.5), RangeError);
  });
});

describe('settlementDeadlineSecs', () => {
  const cases: [number, number, number][] = [
    [1_700_000_030_000, 60, 1_700_000_090], // whole second: no rounding
    [1_700_000_030_001, 60, 1_700_000_091], // 1 ms past rounds up
    [1_700_000_030_999, 60, 1_700_000_091],
    [0, 0, 0],
    [1, 0, 1],
    [999, 5, 6],
    [1_000, 5, 6],
  ];
  for (const [auctionEndsAt, headroom, expected] of cases) {
    it(`ceil(${auctionEndsAt} / 1000) + ${headroom} = ${expected}`, () => {
      assert.equal(settlementDeadlineSecs(auctionEndsAt, headroom), expected);
    });
  }

  it('property: equals the bigint ceiling for any safe integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER - 1 }), fc.integer({ min: 0, max: 86_400 }), (ms, headroom) => {
        const exact = (BigInt(ms) + 999n) / 1000n + BigInt(headroom);
        assert.equal(BigInt(settlementDeadlineSecs(ms, headroom)), exact);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses negative or fractional inputs', () => {
    assert.throws(() => settlementDeadlineSecs(-1, 60), RangeError);
    assert.throws(() => settlementDeadlineSecs(1.5, 60), RangeError);
    assert.throws(() => settlementDeadlineSecs(1_000, -1), RangeError);
  });
});

describe('quoteAcceptableForMs', () => {
  const receivedAt = 1_700_000_000_000;

  it('neither field (or nulls) means no maker window', () => {
    assert.equal(quoteAcceptableForMs({}, receivedAt), null);
    assert.equal(quoteAcceptableForMs({ acceptableForMs: null, expiryMs: null }, receivedAt), null);
  });

  it('acceptableForMs is kept as sent, minimum 1', () => {
    assert.equal(quoteAcceptableForMs({ acceptableForMs: 1 }, receivedAt), 1);
    assert.equal(quoteAcceptableForMs({ acceptableForMs: 5_000 }, receivedAt), 5_000);
  });

  it('expiryMs is converted to expiryMs - receivedAt', () => {
    assert.equal(quoteAcceptableForMs({ expiryMs: receivedAt + 1 }, receivedAt), 1);
    assert.equal(quoteAcceptableForMs({ expiryMs: receivedAt + 7_500 }, receivedAt), 7_500);
  });

  const bad: [string, { acceptableForMs?: number; expiryMs?: number }, string, string][] = [
    ['both fields', { acceptableForMs: 1_000, expiryMs: receivedAt + 1_000 }, 'acceptableForMs', 'exclusive'],
    ['acceptableForMs zero', { acceptableForMs: 0 }, 'acceptableForMs', 'positive'],
    ['acceptableForMs negative', { acceptableForMs: -1 }, 'acceptableForMs', 'positive'],
    ['acceptableForMs fractional', { acceptableForMs: 0.5 }, 'acceptableForMs', 'integer'],
    ['expiryMs equal to receivedAt', { expiryMs: receivedAt }, 'expiryMs', 'expired'],
    ['expiryMs in the past', { expiryMs: receivedAt - 1 }, 'expiryMs', 'expired'],
    ['expiryMs fractional', { expiryMs: receivedAt + 0.5 }, 'expiryMs', 'integer'],
  ];
  for (const [name, request, field, reason] of bad) {
    it(`refuses ${name} (${field}/${reason})`, () => assert.throws(() => quoteAcceptableForMs(request, receivedAt), invalid(field, reason)));
  }
});
