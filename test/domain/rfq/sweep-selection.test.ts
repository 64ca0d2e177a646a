import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  compareSweepQuotes,
  conformsToSweep,
  cutQuoteAmountInMakersFavour,
  quoteBase,
  quoteQuoteAmount,
  selectSweep,
} from '../../../src/domain/rfq/index.ts';
import type { Side, SweepQuote, SweepTerms } from '../../../src/domain/rfq/index.ts';
import { ETH, USDC, rateArb, sideArb } from './fixtures.ts';

const T0 = 1_700_000_000_000;

function terms(overrides: Partial<SweepTerms> = {}): SweepTerms {
  return { side: 'BUY', baseQty: 3n * ETH, minFillQty: 3n * ETH, quoteLimit: null, takerFeeTenthBp: 0, baseStep: 1n, ...overrides };
}

/** A quote of `base` units of base for `amount` of the quote token, legs laid out for `side`. */
function quote(side: Side, quoteId: string, base: bigint, amount: bigint, overrides: Partial<SweepQuote> = {}): SweepQuote {
  const baseLeg = { token: 'ETH', amount: base };
  const quoteLeg = { token: 'USDC', amount };
  return {
    quoteId,
    status: 'SUBMITTED',
    makerPays: side === 'BUY' ? baseLeg : quoteLeg,
    makerReceives: side === 'BUY' ? quoteLeg : baseLeg,
    receivedAt: T0,
    acceptableForMs: null,
    allOrNone: true,
    ...overrides,
  };
}

describe('selectSweep: examples', () => {
  it('three makers fill a 3 ETH BUY, best per-unit price first, the last one cut', () => {
    const t = terms();
    const selection = selectSweep(t, [
      quote('BUY', 'qt_c', 2n * ETH, 6_100n * USDC, { allOrNone: false }),
      quote('BUY', 'qt_a', ETH, 3_000n * USDC),
      quote('BUY', 'qt_b', ETH, 3_020n * USDC),
    ], T0);
    assert.ok(selection);
    assert.deepEqual(selection.legs.map((l) => [l.quote.quoteId, l.baseQty, l.quoteQty, l.cut]), [
      ['qt_a', ETH, 3_000n * USDC, false],
      ['qt_b', ETH, 3_020n * USDC, false],
      ['qt_c', ETH, 3_050n * USDC, true],
    ]);
    assert.equal(selection.filledBaseQty, 3n * ETH);
    assert.equal(selection.takerQuoteAmount, 9_070n * USDC);
  });

  it('an all-or-none quote that does not fit is skipped for a worse one that does', () => {
    const t = terms({ baseQty: 2n * ETH, minFillQty: ETH });
    const big = (allOrNone: boolean) => quote('BUY', 'qt_big', 2n * ETH, 6_010n * USDC, { allOrNone });
    const others = [quote('BUY', 'qt_a', ETH, 3_000n * USDC), quote('BUY', 'qt_b', ETH, 3_010n * USDC)];
    assert.deepEqual(selectSweep(t, [big(true), ...others], T0)?.legs.map((l) => l.quote.quoteId), ['qt_a', 'qt_b']);
    assert.deepEqual(selectSweep(t, [big(false), ...others], T0)?.legs.map((l) => [l.quote.quoteId, l.quoteQty]), [
      ['qt_a', 3_000n * USDC],
      ['qt_big', 3_005n * USDC],
    ]);
  });

  it('below minFillQty nothing is selected', () => {
    const t = terms({ minFillQty: 2n * ETH });
    assert.equal(selectSweep(t, [quote('BUY', 'qt_a', ETH, 3_000n * USDC)], T0), null);
    assert.ok(selectSweep({ ...t, minFillQty: ETH }, [quote('BUY', 'qt_a', ETH, 3_000n * USDC)], T0));
  });

  it('a cut rounds the quote leg in the maker’s favour: up on a BUY, down on a SELL', () => {
    // 3 units of base for 10 of quote, cut to 1 unit: 10/3 = 3.33, so 4 received, 3 paid.
    assert.equal(cutQuoteAmountInMakersFavour('BUY', quote('BUY', 'qt_a', 3n, 10n), 1n), 4n);
    assert.equal(cutQuoteAmountInMakersFavour('SELL', quote('SELL', 'qt_a', 3n, 10n), 1n), 3n);
  });

  it('a perp cut stays on the venue’s size step', () => {
    const t = terms({ instrumentType: 'PERP', baseQty: 25n, minFillQty: 1n, baseStep: 10n });
    const selection = selectSweep(t, [quote('BUY', 'qt_a', 10n, 100n), quote('BUY', 'qt_b', 20n, 210n, { allOrNone: false })], T0);
    assert.deepEqual(selection?.legs.map((l) => [l.quote.quoteId, l.baseQty, l.quoteQty, l.takerFee]), [
      ['qt_a', 10n, 100n, 0n],
      ['qt_b', 10n, 105n, 0n],
    ]);
  });

  it('SELL fees come off what the taker receives, per leg, rounded down', () => {
    const t = terms({ side: 'SELL', baseQty: 2n * ETH, minFillQty: 2n * ETH, takerFeeTenthBp: 25 });
    const selection = selectSweep(t, [quote('SELL', 'qt_a', ETH, 3_000n * USDC), quote('SELL', 'qt_b', ETH, 2_999n * USDC)], T0);
    assert.deepEqual(selection?.legs.map((l) => [l.quote.quoteId, l.takerFee, l.takerQuoteAmount]), [
      ['qt_a', 750_000n, 2_999_250_000n],
      ['qt_b', 749_750n, 2_998_250_250n],
    ]);
  });

  it('a cut that rounding would push past the taker’s per-unit bound is not made', () => {
    // Bound 31 over 3 units; qt_b is exactly at it, and cut to the one unit left it rounds up to
    // 11, past 31/3.
    const t = terms({ baseQty: 3n, minFillQty: 1n, quoteLimit: 31n });
    const selection = selectSweep(t, [quote('BUY', 'qt_a', 2n, 20n), quote('BUY', 'qt_b', 3n, 31n, { allOrNone: false })], T0);
    assert.deepEqual(selection?.legs.map((l) => l.quote.quoteId), ['qt_a']);
  });
});

interface Case {
  terms: SweepTerms;
  quotes: SweepQuote[];
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    side: sideArb,
    baseQty: fc.bigInt(1n, 60n),
    takerFeeTenthBp: rateArb,
    perp: fc.boolean(),
    baseStep: fc.constantFrom(1n, 1n, 2n, 5n),
    limitPerUnit: fc.option(fc.bigInt(1n, 40n), { nil: null }),
  })
  .chain((r) =>
    fc.record({
      minFillQty: fc.bigInt(1n, r.baseQty),
      quotes: fc.array(
        fc.record({
          base: fc.bigInt(1n, r.baseQty + 3n),
          perUnit: fc.bigInt(1n, 40n),
          wobble: fc.bigInt(0n, 3n),
          receivedAt: fc.integer({ min: T0, max: T0 + 4 }),
          allOrNone: fc.boolean(),
          open: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
        }),
        { maxLength: 8 },
      ),
    }).map(({ minFillQty, quotes }): Case => ({
      terms: {
        side: r.side,
        baseQty: r.baseQty,
        minFillQty,
        quoteLimit: r.limitPerUnit === null ? null : r.limitPerUnit * r.baseQty,
        takerFeeTenthBp: r.takerFeeTenthBp,
        instrumentType: r.perp ? 'PERP' : 'SPOT',
        baseStep: r.baseStep,
      },
      quotes: quotes.map((q, i) =>
        quote(r.side, `qt_${String(i).padStart(2, '0')}`, q.base, q.base * q.perUnit + q.wobble, {
          receivedAt: q.receivedAt,
          allOrNone: q.allOrNone,
          status: q.open ? 'SUBMITTED' : 'CANCELLED',
        })),
    })),
  );

describe('selectSweep: properties', () => {
  it('fills at most baseQty, at least minFillQty, or selects nothing', () => {
    fc.assert(fc.property(caseArb, ({ terms: t, quotes }) => {
      const selection = selectSweep(t, quotes, T0);
      if (selection === null) return;
      assert.ok(selection.filledBaseQty <= t.baseQty);
      assert.ok(selection.filledBaseQty >= t.minFillQty);
      assert.equal(selection.filledBaseQty, selection.legs.reduce((s, l) => s + l.baseQty, 0n));
      assert.equal(new Set(selection.legs.map((l) => l.quote.quoteId)).size, selection.legs.length);
    }), { numRuns: 2_000 });
  });

  it('takes only conforming quotes, in rank order, with at most one cut and that one last', () => {
    fc.assert(fc.property(caseArb, ({ terms: t, quotes }) => {
      const legs = selectSweep(t, quotes, T0)?.legs ?? [];
      for (const l of legs) assert.ok(conformsToSweep(t, l.quote, T0));
      for (let i = 1; i < legs.length; i++) assert.ok(compareSweepQuotes(t, legs[i - 1]!.quote, legs[i]!.quote) < 0);
      const cuts = legs.filter((l) => l.cut);
      assert.ok(cuts.length <= 1);
      if (cuts.length === 1) assert.equal(legs.at(-1), cuts[0]);
      for (const l of legs) {
        if (l.cut) {
          assert.equal(l.quote.allOrNone, false);
          assert.equal(l.baseQty % t.baseStep, 0n);
          assert.ok(l.baseQty < quoteBase(t.side, l.quote));
        } else {
          assert.equal(l.baseQty, quoteBase(t.side, l.quote));
          assert.equal(l.quoteQty, quoteQuoteAmount(t.side, l.quote));
        }
      }
    }), { numRuns: 2_000 });
  });

  it('keeps the taker’s bound pro rata: BUY pays at most, SELL receives at least quoteLimit per unit', () => {
    fc.assert(fc.property(caseArb, ({ terms: t, quotes }) => {
      const selection = selectSweep(t, quotes, T0);
      if (selection === null || t.quoteLimit === null) return;
      const paid = selection.takerQuoteAmount * t.baseQty;
      const bound = t.quoteLimit * selection.filledBaseQty;
      assert.ok(t.side === 'BUY' ? paid <= bound : paid >= bound);
    }), { numRuns: 2_000 });
  });

  it('rounds a cut in the maker’s favour by less than one unit of the quote token', () => {
    fc.assert(fc.property(caseArb, ({ terms: t, quotes }) => {
      for (const l of selectSweep(t, quotes, T0)?.legs ?? []) {
        if (!l.cut) continue;
        const base = quoteBase(t.side, l.quote);
        const exact = quoteQuoteAmount(t.side, l.quote) * l.baseQty; // the pro-rata leg times `base`
        const scaled = l.quoteQty * base;
        if (t.side === 'BUY') assert.ok(scaled >= exact && scaled - exact < base);
        else assert.ok(scaled <= exact && exact - scaled < base);
      }
    }), { numRuns: 2_000 });
  });

  it('does not depend on the order the quotes come in', () => {
    fc.assert(fc.property(caseArb, fc.integer(), ({ terms: t, quotes }, seed) => {
      const shuffled = [...quotes].sort((a, b) => ((a.quoteId.charCodeAt(4) * 31 + seed) % 7) - ((b.quoteId.charCodeAt(4) * 31 + seed) % 7));
      const ids = (q: SweepQuote[]) => selectSweep(t, q, T0)?.legs.map((l) => [l.quote.quoteId, l.baseQty, l.quoteQty]) ?? null;
      assert.deepEqual(ids(shuffled), ids(quotes));
    }), { numRuns: 1_000 });
  });

  it('stops short of baseQty only when every quote left out is all-or-none and too large', () => {
    fc.assert(fc.property(caseArb, ({ terms: raw, quotes }) => {
      // Without a bound and on a one-unit grid no cut can fail, so only all-or-none quotes remain.
      const t = { ...raw, quoteLimit: null, baseStep: 1n };
      const selection = selectSweep(t, quotes, T0);
      const filled = selection?.filledBaseQty ?? 0n;
      if (selection === null || filled === t.baseQty) return;
      const chosen = new Set(selection.legs.map((l) => l.quote.quoteId));
      for (const q of quotes) {
        if (chosen.has(q.quoteId) || !conformsToSweep(t, q, T0)) continue;
        assert.equal(q.allOrNone, true);
        assert.ok(quoteBase(t.side, q) > t.baseQty - filled);
      }
    }), { numRuns: 2_000 });
  });
});
