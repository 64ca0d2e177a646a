import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ServiceError } from '../../../src/domain/errors.ts';
import {
  QUOTE_STATUSES,
  acceptDeadline,
  assertAuctionOpen,
  assertQuoteAcceptable,
  isAuctionOpen,
  quoteRefusal,
  takerTotal,
} from '../../../src/domain/rfq/index.ts';
import { USDC, quoteFor, rfqTerms } from './fixtures.ts';

const T0 = 1_700_000_000_000;

describe('quoteRefusal', () => {
  it('a SUBMITTED quote without window or limit conforms', () => {
    const rfq = rfqTerms();
    assert.equal(quoteRefusal(rfq, quoteFor(rfq, 3_000n * USDC), T0 + 10_000_000), null);
  });

  for (const status of QUOTE_STATUSES.filter((s) => s !== 'SUBMITTED')) {
    it(`refuses a ${status} quote with reason status`, () => {
      const rfq = rfqTerms();
      assert.deepEqual(quoteRefusal(rfq, quoteFor(rfq, 1n, { status }), T0), { code: 'QUOTE_NOT_ACCEPTABLE', reason: 'status' });
    });
  }

  it('maker window is half-open: acceptable while now < receivedAt + acceptableForMs', () => {
    const rfq = rfqTerms();
    const quote = quoteFor(rfq, 1n, { receivedAt: T0, acceptableForMs: 500 });
    assert.equal(quoteRefusal(rfq, quote, T0), null);
    assert.equal(quoteRefusal(rfq, quote, T0 + 499), null);
    assert.deepEqual(quoteRefusal(rfq, quote, T0 + 500), { code: 'QUOTE_NOT_ACCEPTABLE', reason: 'makerWindow' });
    assert.deepEqual(quoteRefusal(rfq, quote, T0 + 501), { code: 'QUOTE_NOT_ACCEPTABLE', reason: 'makerWindow' });
  });

  it('the minimum window (1 ms) allows the receivedAt instant only', () => {
    const rfq = rfqTerms();
    const quote = quoteFor(rfq, 1n, { receivedAt: T0, acceptableForMs: 1 });
    assert.equal(quoteRefusal(rfq, quote, T0), null);
    assert.equal(quoteRefusal(rfq, quote, T0 + 1)?.reason, 'makerWindow');
  });

  it('BUY limit bounds takerTotal (fee included), inclusive', () => {
    const probe = rfqTerms({ side: 'BUY', takerFeeTenthBp: 25 });
    const price = 3_000n * USDC;
    const total = takerTotal(probe, quoteFor(probe, price)); // 3000.75 USDC
    assert.equal(total, 3_000_750_000n);
    const atLimit = rfqTerms({ side: 'BUY', takerFeeTenthBp: 25, quoteLimit: total });
    assert.equal(quoteRefusal(atLimit, quoteFor(atLimit, price), T0), null);
    const belowFee = rfqTerms({ side: 'BUY', takerFeeTenthBp: 25, quoteLimit: total - 1n });
    assert.deepEqual(quoteRefusal(belowFee, quoteFor(belowFee, price), T0), { code: 'QUOTE_NOT_ACCEPTABLE', reason: 'quoteLimit' });
    // The price alone is under the limit; the fee pushes it over.
    const priceOnly = rfqTerms({ side: 'BUY', takerFeeTenthBp: 25, quoteLimit: price });
    assert.equal(quoteRefusal(priceOnly, quoteFor(priceOnly, price), T0)?.reason, 'quoteLimit');
  });

  it('SELL limit is a floor on makerPays.amount, inclusive', () => {
    const rfq = rfqTerms({ side: 'SELL', quoteLimit: 2_900n * USDC });
    assert.equal(quoteRefusal(rfq, quoteFor(rfq, 2_900n * USDC), T0), null);
    assert.equal(quoteRefusal(rfq, quoteFor(rfq, 2_900n * USDC + 1n), T0), null);
    assert.deepEqual(quoteRefusal(rfq, quoteFor(rfq, 2_900n * USDC - 1n), T0), { code: 'QUOTE_NOT_ACCEPTABLE', reason: 'quoteLimit' });
  });

  it('PERP BUY limit bounds makerReceives.amount alone', () => {
    const rfq = rfqTerms({ side: 'BUY', takerFeeTenthBp: 25, quoteLimit: 3_000n * USDC, instrumentType: 'PERP' });
    assert.equal(quoteRefusal(rfq, quoteFor(rfq, 3_000n * USDC), T0), null);
    assert.equal(quoteRefusal(rfq, quoteFor(rfq, 3_000n * USDC + 1n), T0)?.reason, 'quoteLimit');
  });

  it('reports the first failing check: status, then maker window, then limit', () => {
    const rfq = rfqTerms({ side: 'SELL', quoteLimit: 10n });
    const everythingWrong = quoteFor(rfq, 1n, { status: 'EXPIRED', receivedAt: T0, acceptableForMs: 1 });
    assert.equal(quoteRefusal(rfq, everythingWrong, T0 + 5)?.reason, 'status');
    assert.equal(quoteRefusal(rfq, { ...everythingWrong, status: 'SUBMITTED' }, T0 + 5)?.reason, 'makerWindow');
    assert.equal(quoteRefusal(rfq, { ...everythingWrong, status: 'SUBMITTED' }, T0)?.reason, 'quoteLimit');
  });

  it('assertQuoteAcceptable throws QUOTE_NOT_ACCEPTABLE with details.reason', () => {
    const rfq = rfqTerms();
    assertQuoteAcceptable(rfq, quoteFor(rfq, 1n), T0);
    assert.throws(
      () => assertQuoteAcceptable(rfq, quoteFor(rfq, 1n, { receivedAt: T0, acceptableForMs: 10 }), T0 + 10),
      (error: unknown) => error instanceof ServiceError && error.code === 'QUOTE_NOT_ACCEPTABLE' && error.details?.['reason'] === 'makerWindow',
    );
  });
});

describe('acceptDeadline', () => {
  it('is auctionEndsAt without a maker window', () => {
    assert.equal(acceptDeadline({ receivedAt: T0, acceptableForMs: null }, T0 + 30_000), T0 + 30_000);
  });

  it('is the earlier of the maker window end and the auction close', () => {
    assert.equal(acceptDeadline({ receivedAt: T0, acceptableForMs: 5_000 }, T0 + 30_000), T0 + 5_000);
    assert.equal(acceptDeadline({ receivedAt: T0, acceptableForMs: 60_000 }, T0 + 30_000), T0 + 30_000);
  });

  it('property: a SUBMITTED quote with no limit is acceptable exactly while now < acceptDeadline and the auction is open', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 100 }),
        fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 300 }),
        (receivedAt, acceptableForMs, auctionEndsAt, now) => {
          const rfq = rfqTerms({ auctionEndsAt });
          const quote = quoteFor(rfq, 1n, { receivedAt, acceptableForMs });
          const acceptable = quoteRefusal(rfq, quote, now) === null && isAuctionOpen(auctionEndsAt, now);
          assert.equal(acceptable, now < acceptDeadline(quote, auctionEndsAt));
        },
      ),
    );
  });
});

describe('auction clock', () => {
  it('is open strictly before auctionEndsAt', () => {
    assert.equal(isAuctionOpen(T0, T0 - 1), true);
    assert.equal(isAuctionOpen(T0, T0), false);
    assert.equal(isAuctionOpen(T0, T0 + 1), false);
  });

  it('assertAuctionOpen throws AUCTION_CLOSED at and after the deadline', () => {
    assertAuctionOpen(T0, T0 - 1);
    for (const now of [T0, T0 + 1]) {
      assert.throws(
        () => assertAuctionOpen(T0, now),
        (error: unknown) => error instanceof ServiceError && error.code === 'AUCTION_CLOSED' && error.details?.['auctionEndsAt'] === T0,
      );
    }
  });
});
