/** The pure rules of a SWEEP leg beside the selection: its quote's legs, its takerTotal, and its ledger postings. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkSweepQuoteLegs, sweepLegFee, sweepQuoteTakerTotal } from '../../../src/domain/rfq/index.ts';
import { assertBalanced, sweepLegPostings } from '../../../src/domain/ledger/index.ts';
import { ServiceError } from '../../../src/domain/errors.ts';
import { ETH, USDC, rateArb, sideArb } from './fixtures.ts';

const rfq = (side: 'BUY' | 'SELL') => ({ side, baseQty: 3n * ETH, base: 'ETH', quote: 'USDC' });
const legs = (side: 'BUY' | 'SELL', base: bigint, amount: bigint) =>
  side === 'BUY'
    ? { makerPays: { token: 'ETH', amount: base }, makerReceives: { token: 'USDC', amount } }
    : { makerPays: { token: 'USDC', amount }, makerReceives: { token: 'ETH', amount: base } };

describe('SWEEP quote legs', () => {
  it('admits any base leg from one unit up to baseQty, on either side', () => {
    fc.assert(fc.property(sideArb, fc.bigInt({ min: 1n, max: 3n * ETH }), (side, base) => {
      checkSweepQuoteLegs(rfq(side), legs(side, base, 1000n * USDC));
    }));
  });

  it('refuses a base leg above baseQty (LEGS_MISMATCH baseQty) and the wrong tokens (token)', () => {
    for (const side of ['BUY', 'SELL'] as const) {
      assert.throws(() => checkSweepQuoteLegs(rfq(side), legs(side, 3n * ETH + 1n, 1n)), (e) => e instanceof ServiceError && e.details?.['reason'] === 'baseQty');
      const swapped = { makerPays: legs(side, ETH, 1n).makerReceives, makerReceives: legs(side, ETH, 1n).makerPays };
      assert.throws(() => checkSweepQuoteLegs(rfq(side), swapped), (e) => e instanceof ServiceError && e.details?.['reason'] === 'token');
    }
  });

  it("a BUY quote's takerTotal is its quote leg plus the fee; a SELL quote's the base it takes", () => {
    fc.assert(fc.property(rateArb, fc.bigInt({ min: 1n, max: 3n * ETH }), fc.bigInt({ min: 1n, max: 10n ** 12n }), (rate, base, amount) => {
      const terms = { takerFeeTenthBp: rate, instrumentType: 'SPOT' as const };
      assert.equal(sweepQuoteTakerTotal({ ...terms, side: 'BUY' }, legs('BUY', base, amount)), amount + sweepLegFee(terms, amount));
      assert.equal(sweepQuoteTakerTotal({ ...terms, side: 'SELL' }, legs('SELL', base, amount)), base);
    }));
  });
});

describe('SWEEP leg postings', () => {
  it('balance per token on either side; the fee is in the quote token and only a BUY takes it from the lock', () => {
    fc.assert(fc.property(sideArb, fc.bigInt({ min: 1n, max: 3n * ETH }), fc.bigInt({ min: 1n, max: 10n ** 12n }), rateArb, (side, base, amount, rate) => {
      const fee = sweepLegFee({ takerFeeTenthBp: rate, instrumentType: 'SPOT' }, amount);
      const paid = side === 'BUY' ? { token: 'USDC', amount } : { token: 'ETH', amount: base };
      const received = side === 'BUY' ? { token: 'ETH', amount: base } : { token: 'USDC', amount };
      const postings = sweepLegPostings({ side, taker: 't', paid, received, fee });
      assertBalanced(postings);
      const feePostings = postings.filter((p) => p.source === 'FEE' && p.book === 'user');
      assert.equal(feePostings.reduce((sum, p) => sum - p.delta, 0n), fee);
      for (const p of feePostings) {
        assert.equal(p.token, 'USDC');
        assert.equal(p.fromLocked === true, side === 'BUY');
      }
      const lockedOut = postings.filter((p) => p.fromLocked).reduce((sum, p) => sum - p.delta, 0n);
      assert.equal(lockedOut, side === 'BUY' ? amount + fee : base, 'what the leg locked, exactly');
    }));
  });
});
