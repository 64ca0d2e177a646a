import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compareQuotes, quoteRefusal, selectBest } from '../../../src/domain/rfq/index.ts';
import type { QuoteTerms, RfqTerms } from '../../../src/domain/rfq/index.ts';
import { USDC, quoteFor, quotesArb, rfqArb, rfqTerms } from './fixtures.ts';

const T0 = 1_700_000_000_000;

/** Independent ranking key: smaller is better. BUY by all-in cost, SELL by proceeds (negated). */
function priceKey(rfq: RfqTerms, quote: QuoteTerms): bigint {
  if (rfq.side === 'BUY') {
    const amount = quote.makerReceives.amount;
    return amount + (amount * BigInt(rfq.takerFeeTenthBp)) / 100_000n;
  }
  return -quote.makerPays.amount;
}

function strictlyBetter(rfq: RfqTerms, a: QuoteTerms, b: QuoteTerms): boolean {
  const pa = priceKey(rfq, a);
  const pb = priceKey(rfq, b);
  if (pa !== pb) return pa < pb;
  if (a.receivedAt !== b.receivedAt) return a.receivedAt < b.receivedAt;
  return a.quoteId < b.quoteId;
}

describe('selectBest: examples', () => {
  it('BUY picks the lowest takerTotal', () => {
    const rfq = rfqTerms({ side: 'BUY' });
    const quotes = [
      quoteFor(rfq, 3_001n * USDC, { quoteId: 'qt_a' }),
      quoteFor(rfq, 2_999n * USDC, { quoteId: 'qt_b' }),
      quoteFor(rfq, 3_000n * USDC, { quoteId: 'qt_c' }),
    ];
    assert.equal(selectBest(rfq, quotes, T0)?.quoteId, 'qt_b');
  });

  it('SELL picks the highest makerPays.amount', () => {
    const rfq = rfqTerms({ side: 'SELL' });
    const quotes = [
      quoteFor(rfq, 2_999n * USDC, { quoteId: 'qt_a' }),
      quoteFor(rfq, 3_001n * USDC, { quoteId: 'qt_b' }),
      quoteFor(rfq, 3_000n * USDC, { quoteId: 'qt_c' }),
    ];
    assert.equal(selectBest(rfq, quotes, T0)?.quoteId, 'qt_b');
  });

  it('skips better quotes that do not conform (status, maker window, limit)', () => {
    const rfq = rfqTerms({ side: 'BUY', takerFeeTenthBp: 0, quoteLimit: 3_000n * USDC });
    const quotes = [
      quoteFor(rfq, 2_000n * USDC, { quoteId: 'qt_cancelled', status: 'CANCELLED' }),
      quoteFor(rfq, 2_100n * USDC, { quoteId: 'qt_lapsed', receivedAt: T0 - 1_000, acceptableForMs: 1_000 }),
      quoteFor(rfq, 3_000n * USDC + 1n, { quoteId: 'qt_over' }),
      quoteFor(rfq, 3_000n * USDC, { quoteId: 'qt_ok' }),
    ];
    assert.equal(selectBest(rfq, quotes, T0)?.quoteId, 'qt_ok');
  });

  it('returns null when nothing conforms, or there are no quotes', () => {
    const rfq = rfqTerms({ side: 'SELL', quoteLimit: 3_000n * USDC });
    assert.equal(selectBest(rfq, [quoteFor(rfq, 2_999n * USDC)], T0), null);
    assert.equal(selectBest(rfq, [], T0), null);
  });

  it('equal takerTotal ties go to the earlier receivedAt', () => {
    const rfq = rfqTerms({ side: 'BUY', takerFeeTenthBp: 25 });
    const quotes = [
      quoteFor(rfq, 100n, { quoteId: 'qt_late', receivedAt: T0 + 2 }),
      quoteFor(rfq, 100n, { quoteId: 'qt_early', receivedAt: T0 + 1 }),
    ];
    assert.equal(selectBest(rfq, quotes, T0 + 3)?.quoteId, 'qt_early');
  });

  it('equal price and receivedAt: the smaller quoteId wins, whatever the input order', () => {
    const rfq = rfqTerms({ side: 'SELL' });
    const a = quoteFor(rfq, 100n, { quoteId: 'qt_a', receivedAt: T0 });
    const b = quoteFor(rfq, 100n, { quoteId: 'qt_b', receivedAt: T0 });
    assert.equal(selectBest(rfq, [a, b], T0)?.quoteId, 'qt_a');
    assert.equal(selectBest(rfq, [b, a], T0)?.quoteId, 'qt_a');
  });

  it('a maker window ending exactly at the close does not conform at the close', () => {
    const rfq = rfqTerms({ side: 'SELL', auctionEndsAt: T0 + 1_000 });
    const better = quoteFor(rfq, 200n, { quoteId: 'qt_window', receivedAt: T0, acceptableForMs: 1_000 });
    const worse = quoteFor(rfq, 100n, { quoteId: 'qt_open', receivedAt: T0 });
    assert.equal(selectBest(rfq, [better, worse], rfq.auctionEndsAt)?.quoteId, 'qt_open');
    assert.equal(selectBest(rfq, [better, worse], rfq.auctionEndsAt - 1)?.quoteId, 'qt_window');
  });

  it('compareQuotes is antisymmetric on an example', () => {
    const rfq = rfqTerms({ side: 'BUY' });
    const a = quoteFor(rfq, 1n, { quoteId: 'qt_a' });
    const b = quoteFor(rfq, 2n, { quoteId: 'qt_b' });
    assert.ok(compareQuotes(rfq, a, b) < 0);
    assert.ok(compareQuotes(rfq, b, a) > 0);
    assert.equal(compareQuotes(rfq, a, a), 0);
  });
});

describe('selectBest: properties', () => {
  // Half the cases are crowded: few distinct prices and instants, so ties decide the winner.
  const caseArb = fc
    .tuple(rfqArb, fc.boolean())
    .chain(([rfq, crowded]) => fc.tuple(fc.constant(rfq), quotesArb(rfq, crowded), fc.integer({ min: 0, max: 45 })));

  it('the selection is conforming, and no conforming quote is strictly better', () => {
    fc.assert(
      fc.property(caseArb, ([rfq, quotes, now]) => {
        const selected = selectBest(rfq, quotes, now);
        const conforming = quotes.filter((q) => quoteRefusal(rfq, q, now) === null);
        if (selected === null) {
          assert.equal(conforming.length, 0);
          return;
        }
        assert.equal(quoteRefusal(rfq, selected, now), null);
        assert.ok(quotes.includes(selected));
        for (const other of conforming) assert.ok(!strictlyBetter(rfq, other, selected), `${other.quoteId} beats ${selected.quoteId}`);
      }),
      { numRuns: 1000 },
    );
  });

  it('the selection does not depend on input order', () => {
    const permutedArb = caseArb.chain(([rfq, quotes, now]) =>
      fc.tuple(fc.constant(rfq), fc.constant(quotes), fc.shuffledSubarray(quotes, { minLength: quotes.length, maxLength: quotes.length }), fc.constant(now)),
    );
    fc.assert(
      fc.property(permutedArb, ([rfq, quotes, permuted, now]) => {
        assert.equal(selectBest(rfq, permuted, now)?.quoteId, selectBest(rfq, quotes, now)?.quoteId);
      }),
      { numRuns: 500 },
    );
  });

  it('compareQuotes is a total order consistent with the independent ranking', () => {
    fc.assert(
      fc.property(caseArb, ([rfq, quotes]) => {
        for (const a of quotes) {
          for (const b of quotes) {
            const c = compareQuotes(rfq, a, b);
            assert.equal(Math.sign(c) + Math.sign(compareQuotes(rfq, b, a)), 0);
            assert.equal(c < 0, strictlyBetter(rfq, a, b));
            if (a !== b) assert.notEqual(c, 0);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
