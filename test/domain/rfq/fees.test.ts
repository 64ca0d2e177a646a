import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ServiceError } from '../../../src/domain/errors.ts';
import {
  makerBaseQty,
  minNotionalCheck,
  submissionLockAmount,
  takerFee,
  takerLockAmount,
  takerPayToken,
  takerTotal,
} from '../../../src/domain/rfq/index.ts';
import type { Instrument } from '../../../src/domain/rfq/index.ts';
import { ETH, USDC, rateArb, rfqTerms } from './fixtures.ts';

const leg = (token: string, amount: bigint) => ({ token, amount });

describe('takerFee', () => {
  it('BUY: rate on makerReceives.amount, rounded down', () => {
    const rfq = rfqTerms({ side: 'BUY', takerFeeTenthBp: 25 });
    // 3000.123456 USDC * 0.00025 = 0.750030864 -> 0.750030
    assert.equal(takerFee(rfq, 3_000_123_456n), 750_030n);
    assert.equal(takerFee(rfq, 3_999n), 0n); // 0.099975 units rounds to 0
    assert.equal(takerFee(rfq, 4_000n), 1n);
  });

  it('SELL: rate on baseQty whatever the quote, rounded down', () => {
    const rfq = rfqTerms({ side: 'SELL', baseQty: 39_999n, takerFeeTenthBp: 25 });
    assert.equal(takerFee(rfq, 1n), 9n); // 9.99975 -> 9
    assert.equal(takerFee(rfq, 10n ** 30n), 9n);
    assert.equal(takerFee(rfqTerms({ side: 'SELL', baseQty: ETH, takerFeeTenthBp: 25 }), 0n), 250_000_000_000_000n);
  });

  it('zero rate charges nothing', () => {
    assert.equal(takerFee(rfqTerms({ takerFeeTenthBp: 0 }), 10n ** 20n), 0n);
    assert.equal(takerFee(rfqTerms({ side: 'SELL', takerFeeTenthBp: 0 }), 1n), 0n);
  });

  it('PERP: no fee in the domain (the venue charges it)', () => {
    assert.equal(takerFee(rfqTerms({ instrumentType: 'PERP' }), 3_000n * USDC), 0n);
    assert.equal(takerFee(rfqTerms({ side: 'SELL', instrumentType: 'PERP' }), 3_000n * USDC), 0n);
  });
});

describe('makerBaseQty', () => {
  it('BUY: the full baseQty', () => {
    assert.equal(makerBaseQty(rfqTerms({ side: 'BUY', baseQty: 39_999n })), 39_999n);
  });

  it('SELL: baseQty minus the fee, which rounds down (so the maker buys a little more)', () => {
    assert.equal(makerBaseQty(rfqTerms({ side: 'SELL', baseQty: 39_999n, takerFeeTenthBp: 25 })), 39_990n);
    assert.equal(makerBaseQty(rfqTerms({ side: 'SELL', baseQty: ETH, takerFeeTenthBp: 25 })), ETH - 250_000_000_000_000n);
  });

  it('PERP SELL: nothing is carved out', () => {
    assert.equal(makerBaseQty(rfqTerms({ side: 'SELL', baseQty: 39_999n, instrumentType: 'PERP' })), 39_999n);
  });
});

describe('takerTotal', () => {
  it('BUY: makerReceives.amount plus its own fee', () => {
    const rfq = rfqTerms({ side: 'BUY', takerFeeTenthBp: 25 });
    assert.equal(takerTotal(rfq, { makerReceives: leg('USDC', 3_000_123_456n) }), 3_000_873_486n);
  });

  it('SELL: equals baseQty for a conforming quote, for any baseQty and rate', () => {
    fc.assert(
      fc.property(fc.bigInt(1n, 10n ** 30n), rateArb, (baseQty, rate) => {
        const rfq = rfqTerms({ side: 'SELL', baseQty, takerFeeTenthBp: rate });
        assert.equal(takerTotal(rfq, { makerReceives: leg('ETH', makerBaseQty(rfq)) }), baseQty);
      }),
    );
  });

  it('BUY: fee never negative, rounds down, and the total never decreases as the price rises', () => {
    fc.assert(
      fc.property(fc.bigInt(0n, 10n ** 30n), fc.bigInt(0n, 10n ** 6n), rateArb, (amount, step, rate) => {
        const rfq = rfqTerms({ side: 'BUY', takerFeeTenthBp: rate });
        const fee = takerFee(rfq, amount);
        assert.ok(fee >= 0n);
        assert.ok(fee * 100_000n <= amount * BigInt(rate));
        assert.ok(amount * BigInt(rate) < (fee + 1n) * 100_000n);
        const total = takerTotal(rfq, { makerReceives: leg('USDC', amount) });
        assert.equal(total, amount + fee);
        assert.ok(takerTotal(rfq, { makerReceives: leg('USDC', amount + step) }) >= total);
      }),
    );
  });

  it('BUY: takerTotal is strictly increasing in makerReceives.amount (so equal totals mean equal prices)', () => {
    fc.assert(
      fc.property(fc.bigInt(0n, 10n ** 30n), rateArb, (amount, rate) => {
        const rfq = rfqTerms({ side: 'BUY', takerFeeTenthBp: rate });
        assert.ok(takerTotal(rfq, { makerReceives: leg('USDC', amount + 1n) }) > takerTotal(rfq, { makerReceives: leg('USDC', amount) }));
      }),
    );
  });

  it('PERP: makerReceives.amount alone', () => {
    assert.equal(takerTotal(rfqTerms({ instrumentType: 'PERP' }), { makerReceives: leg('USDC', 3_000n * USDC) }), 3_000n * USDC);
  });
});

describe('locks', () => {
  it('takerPayToken: BUY pays the quote token, SELL the base token', () => {
    assert.equal(takerPayToken(rfqTerms({ side: 'BUY' })), 'USDC');
    assert.equal(takerPayToken(rfqTerms({ side: 'SELL' })), 'ETH');
  });

  it('takerLockAmount: BUY locks takerTotal, SELL locks the whole baseQty', () => {
    const buy = rfqTerms({ side: 'BUY', takerFeeTenthBp: 25 });
    assert.equal(takerLockAmount(buy, { makerReceives: leg('USDC', 3_000_123_456n) }), 3_000_873_486n);
    const sell = rfqTerms({ side: 'SELL', baseQty: 39_999n, takerFeeTenthBp: 25 });
    assert.equal(takerLockAmount(sell, { makerReceives: leg('ETH', 39_990n) }), 39_999n);
  });

  it('takerLockAmount refuses a perp (no funds are locked for a perp)', () => {
    assert.throws(() => takerLockAmount(rfqTerms({ instrumentType: 'PERP' }), { makerReceives: leg('USDC', 1n) }), RangeError);
  });

  it('submissionLockAmount: autoAccept BUY locks quoteLimit, SELL baseQty', () => {
    assert.equal(submissionLockAmount(rfqTerms({ autoAccept: true, side: 'BUY', quoteLimit: 3_100n * USDC })), 3_100n * USDC);
    assert.equal(submissionLockAmount(rfqTerms({ autoAccept: true, side: 'SELL', baseQty: 5n, quoteLimit: null })), 5n);
  });

  it('submissionLockAmount: autoAccept BUY without a limit is INVALID_REQUEST quoteLimit/required', () => {
    assert.throws(
      () => submissionLockAmount(rfqTerms({ autoAccept: true, side: 'BUY', quoteLimit: null })),
      (error: unknown) =>
        error instanceof ServiceError &&
        error.code === 'INVALID_REQUEST' &&
        JSON.stringify(error.details?.['errors']) === JSON.stringify([{ field: 'quoteLimit', reason: 'required', message: 'quoteLimit is required on an autoAccept BUY' }]),
    );
  });

  it('submissionLockAmount refuses taker-driven and perp RFQs', () => {
    assert.throws(() => submissionLockAmount(rfqTerms({ autoAccept: false, quoteLimit: 1n })), RangeError);
    assert.throws(() => submissionLockAmount(rfqTerms({ autoAccept: true, quoteLimit: 1n, instrumentType: 'PERP' })), RangeError);
  });
});

describe('minNotionalCheck', () => {
  const spot: Instrument = {
    instrumentId: 'ETH-USDC-SPOT',
    base: 'ETH',
    quote: 'USDC',
    baseDecimals: 18,
    quoteDecimals: 6,
    type: 'SPOT',
    takerFeeTenthBp: 25,
    minQuoteNotional: 10n * USDC,
    enabled: true,
  };
  // 10 USDC + floor(10 USDC * 0.00025) = 10.0025 USDC
  const minLimit = 10_002_500n;

  it('a BUY limit at minQuoteNotional plus fee passes; one unit less is refused', () => {
    minNotionalCheck(spot, 'BUY', minLimit);
    minNotionalCheck(spot, 'BUY', minLimit + 1n);
    assert.throws(
      () => minNotionalCheck(spot, 'BUY', minLimit - 1n),
      (error: unknown) =>
        error instanceof ServiceError &&
        error.code === 'BELOW_MIN_NOTIONAL' &&
        error.details?.['minQuoteNotional'] === '10' &&
        error.details['minQuoteLimit'] === '10.0025',
    );
  });

  it('a limit of exactly minQuoteNotional (fee not covered) is refused', () => {
    assert.throws(() => minNotionalCheck(spot, 'BUY', 10n * USDC), { code: 'BELOW_MIN_NOTIONAL' });
  });

  it('SELL limits, absent limits and markets without a minimum are not checked', () => {
    minNotionalCheck(spot, 'SELL', 1n);
    minNotionalCheck(spot, 'BUY', null);
    minNotionalCheck({ ...spot, minQuoteNotional: null }, 'BUY', 1n);
  });

  it('PERP: the fee sits outside the limit, so minQuoteNotional alone must be covered', () => {
    const perp: Instrument = { ...spot, instrumentId: 'ETH-USDC-PERP', type: 'PERP' };
    minNotionalCheck(perp, 'BUY', 10n * USDC);
    assert.throws(() => minNotionalCheck(perp, 'BUY', 10n * USDC - 1n), (error: unknown) => {
      return error instanceof ServiceError && error.details?.['minQuoteLimit'] === '10';
    });
  });

  it('property: refused exactly when quoteLimit < min + feeFloor(min)', () => {
    fc.assert(
      fc.property(fc.bigInt(0n, 10n ** 12n), fc.bigInt(1n, 10n ** 12n), rateArb, (minimum, quoteLimit, rate) => {
        const instrument = { ...spot, minQuoteNotional: minimum, takerFeeTenthBp: rate };
        const required = minimum + (minimum * BigInt(rate)) / 100_000n;
        let refused = false;
        try {
          minNotionalCheck(instrument, 'BUY', quoteLimit);
        } catch (error) {
          assert.ok(error instanceof ServiceError && error.code === 'BELOW_MIN_NOTIONAL');
          refused = true;
        }
        assert.equal(refused, quoteLimit < required);
      }),
    );
  });
});
