/** Builders for RFQ-domain tests. ETH has 18 decimals and USDC 6, as on the seeded instruments. */
import fc from 'fast-check';
import { makerBaseQty } from '../../../src/domain/rfq/index.ts';
import type { QuoteStatus, QuoteTerms, RfqTerms, Side } from '../../../src/domain/rfq/index.ts';

export const ETH = 10n ** 18n;
export const USDC = 10n ** 6n;

export function rfqTerms(overrides: Partial<RfqTerms> = {}): RfqTerms {
  return {
    side: 'BUY',
    baseQty: ETH,
    quoteLimit: null,
    takerFeeTenthBp: 25,
    autoAccept: false,
    auctionEndsAt: 1_700_000_030_000,
    base: 'ETH',
    quote: 'USDC',
    ...overrides,
  };
}

/**
 * A quote with legs consistent with `rfq`: `price` is the quote-token leg (BUY `makerReceives`,
 * SELL `makerPays`), the base leg is `makerBaseQty(rfq)`.
 */
export function quoteFor(rfq: RfqTerms, price: bigint, overrides: Partial<QuoteTerms> = {}): QuoteTerms {
  const baseLeg = { token: rfq.base, amount: makerBaseQty(rfq) };
  const quoteLeg = { token: rfq.quote, amount: price };
  return {
    quoteId: 'qt_1',
    status: 'SUBMITTED',
    makerPays: rfq.side === 'BUY' ? baseLeg : quoteLeg,
    makerReceives: rfq.side === 'BUY' ? quoteLeg : baseLeg,
    receivedAt: 1_700_000_000_000,
    acceptableForMs: null,
    ...overrides,
  };
}

export const sideArb: fc.Arbitrary<Side> = fc.constantFrom('BUY', 'SELL');
export const rateArb = fc.integer({ min: 0, max: 1000 });

export const rfqArb: fc.Arbitrary<RfqTerms> = fc
  .record({
    side: sideArb,
    baseQty: fc.bigInt(1n, 10n ** 24n),
    quoteLimit: fc.option(fc.oneof(fc.bigInt(1n, 40n), fc.bigInt(1n, 10_000n)), { nil: null }),
    takerFeeTenthBp: rateArb,
    autoAccept: fc.boolean(),
  })
  .map((fields) => rfqTerms(fields));

const statusArb: fc.Arbitrary<QuoteStatus> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('SUBMITTED' as const) },
  { weight: 1, arbitrary: fc.constantFrom('SELECTED', 'NOT_SELECTED', 'EXPIRED', 'SETTLED', 'FAILED', 'CANCELLED') },
);

/**
 * Quotes for `rfq` with small price and time ranges, so that boundaries are common. `crowded`
 * draws from three prices and three instants, so that price and receivedAt ties are common too.
 */
export function quotesArb(rfq: RfqTerms, crowded = false): fc.Arbitrary<QuoteTerms[]> {
  const price = crowded
    ? fc.bigInt(1n, 3n)
    : fc.oneof({ weight: 3, arbitrary: fc.bigInt(1n, 30n) }, { weight: 1, arbitrary: fc.bigInt(1n, 10_000n) });
  return fc
    .uniqueArray(
      fc.record({
        quoteId: fc.stringMatching(/^qt_[a-c]{1,3}$/),
        status: statusArb,
        price,
        receivedAt: fc.integer({ min: 0, max: crowded ? 2 : 20 }),
        acceptableForMs: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
      }),
      { selector: (q) => q.quoteId, maxLength: 12 },
    )
    .map((rows) => rows.map(({ price: amount, ...rest }) => quoteFor(rfq, amount, rest)));
}
