/** Ladder validation and top-of-book aggregation (pure), plus the purity of `src/domain/prices`. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { ServiceError } from '../../../src/domain/errors.ts';
import { PRICE_DECIMALS, aggregateTopOfBook, bandLimits, ladderTop, sameTop, uncrossedTopOfBook, type MakerTop } from '../../../src/domain/prices/index.ts';

const P = (text: string) => BigInt(text) * 10n ** BigInt(PRICE_DECIMALS);

function refusal(fn: () => unknown): { code: string; field?: string; reason?: string } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    const first = (error.details?.errors as Array<{ field: string; reason: string }> | undefined)?.[0];
    return { code: error.code, ...(first ? { field: first.field, reason: first.reason } : {}) };
  }
  assert.fail('expected a refusal');
}

describe('ladderTop', () => {
  it('returns the best bid and ask of a valid ladder, normalising equivalent decimals', () => {
    const top = ladderTop([['3000.50', '1'], ['2999', '2.5']], [['3001', '0.1']], 18);
    assert.deepEqual(top, { bid: { price: P('3000') + 5n * 10n ** 17n, size: 10n ** 18n }, ask: { price: P('3001'), size: 10n ** 17n } });
    assert.deepEqual(ladderTop([], [], 8), { bid: null, ask: null });
  });

  it('refuses unordered sides, crossed books, bad decimals, over-precise sizes and too many levels', () => {
    assert.deepEqual(refusal(() => ladderTop([['1', '1'], ['2', '1']], [], 8)), { code: 'INVALID_REQUEST', field: 'bids[1][0]', reason: 'order' });
    assert.deepEqual(refusal(() => ladderTop([], [['2', '1'], ['2', '1']], 8)), { code: 'INVALID_REQUEST', field: 'asks[1][0]', reason: 'order' });
    assert.deepEqual(refusal(() => ladderTop([['3', '1']], [['3', '1']], 8)), { code: 'INVALID_REQUEST', field: 'bids[0][0]', reason: 'crossed' });
    assert.deepEqual(refusal(() => ladderTop([['0', '1']], [], 8)), { code: 'INVALID_REQUEST', field: 'bids[0][0]', reason: 'zero' });
    assert.deepEqual(refusal(() => ladderTop([['1e3', '1']], [], 8)), { code: 'INVALID_REQUEST', field: 'bids[0][0]', reason: 'exponent' });
    assert.deepEqual(refusal(() => ladderTop([[1, '1']], [], 8)), { code: 'INVALID_REQUEST', field: 'bids[0][0]', reason: 'type' });
    assert.deepEqual(refusal(() => ladderTop([['1', '0.000000001']], [], 8)).code, 'AMOUNT_OVER_PRECISE');
    assert.deepEqual(refusal(() => ladderTop([['1']], [], 8)), { code: 'INVALID_REQUEST', field: 'bids[0]', reason: 'type' });
    assert.deepEqual(refusal(() => ladderTop('x', [], 8)), { code: 'INVALID_REQUEST', field: 'bids', reason: 'type' });
    const deep = Array.from({ length: 4 }, (_, i) => [String(100 - i), '1']);
    assert.deepEqual(refusal(() => ladderTop(deep, [], 8, null, 3)), { code: 'INVALID_REQUEST', field: 'bids', reason: 'maxItems' });
  });
});

describe('aggregateTopOfBook', () => {
  it('takes the best price per side and sums sizes of every maker at exactly that price', () => {
    const tops: MakerTop[] = [
      { bid: { price: 100n, size: 1n }, ask: { price: 105n, size: 4n } },
      { bid: { price: 101n, size: 2n }, ask: { price: 105n, size: 5n } },
      { bid: { price: 101n, size: 3n }, ask: null },
    ];
    assert.deepEqual(aggregateTopOfBook(tops), { bid: { price: 101n, size: 5n }, ask: { price: 105n, size: 9n } });
    assert.deepEqual(aggregateTopOfBook([]), { bid: null, ask: null });
  });

  it('agrees with a brute-force model and does not depend on maker order', () => {
    const level = fc.record({ price: fc.bigInt(1n, 20n), size: fc.bigInt(1n, 1000n) });
    const top = fc.record({ bid: fc.option(level, { nil: null }), ask: fc.option(level, { nil: null }) });
    fc.assert(
      fc.property(fc.array(top, { maxLength: 8 }), (tops) => {
        const got = aggregateTopOfBook(tops);
        for (const side of ['bid', 'ask'] as const) {
          const levels = tops.map((t) => t[side]).filter((l) => l !== null);
          if (levels.length === 0) {
            assert.equal(got[side], null);
            continue;
          }
          const prices = levels.map((l) => l.price);
          const best = prices.reduce((a, b) => (side === 'bid' ? (b > a ? b : a) : b < a ? b : a));
          const size = levels.filter((l) => l.price === best).reduce((a, l) => a + l.size, 0n);
          assert.deepEqual(got[side], { price: best, size });
        }
        assert.ok(sameTop(got, aggregateTopOfBook([...tops].reverse())));
      }),
    );
  });
});

describe('src/domain/prices purity', () => {
  const dir = fileURLToPath(new URL('../../../src/domain/prices/', import.meta.url));
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    it(`${name} imports only domain modules and reads no clock or randomness`, () => {
      const source = readFileSync(dir + name, 'utf8');
      for (const match of source.matchAll(/\bfrom\s+'([^']+)'/g)) assert.match(match[1] ?? '', /^(\.\/[a-z-]+\.ts|\.\.\/errors\.ts|\.\.\/money\/[a-z-]+\.ts)$/);
      for (const pattern of [/\bDate\b/, /Math\.random/, /\bprocess\b/, /\bsetTimeout\b/]) assert.doesNotMatch(source, pattern);
    });
  }
});

describe('uncrossedTopOfBook', () => {
  const level = fc.record({ price: fc.bigInt(1n, 20n), size: fc.bigInt(1n, 1000n) });
  // Each maker's own book is uncrossed (ladder.ts refuses the rest).
  const top = fc
    .record({ bid: fc.option(level, { nil: null }), ask: fc.option(level, { nil: null }), at: fc.integer({ min: 0, max: 5 }) })
    .filter((t) => !(t.bid && t.ask && t.bid.price >= t.ask.price));

  it('is never crossed, and is the plain aggregate when nothing crosses', () => {
    fc.assert(
      fc.property(fc.array(top, { maxLength: 8 }), (tops) => {
        const { top: got, setAside } = uncrossedTopOfBook(tops);
        assert.ok(!(got.bid && got.ask && got.bid.price >= got.ask.price), 'not crossed');
        const plain = aggregateTopOfBook(tops);
        const crossed = plain.bid !== null && plain.ask !== null && plain.bid.price >= plain.ask.price;
        if (!crossed) assert.deepEqual([got, setAside], [plain, 0]);
        else assert.ok(setAside > 0, 'a crossing is flagged');
      }),
    );
  });

  it('keeps the newer side at the crossing and sets the older aside; equally recent, both', () => {
    const older = { bid: { price: P('101'), size: 1n }, ask: { price: P('102'), size: 1n }, at: 1 };
    const newer = { bid: { price: P('98'), size: 2n }, ask: { price: P('99'), size: 2n }, at: 2 };
    // The older maker's bid (101) crosses the newer one's ask (99): the old bid goes, its ask stays.
    assert.deepEqual(uncrossedTopOfBook([older, newer]), { top: { bid: { price: P('98'), size: 2n }, ask: { price: P('99'), size: 2n } }, setAside: 1 });
    const tie = uncrossedTopOfBook([{ ...older, at: 3 }, { ...newer, at: 3 }]);
    assert.deepEqual(tie, { top: { bid: { price: P('98'), size: 2n }, ask: { price: P('102'), size: 1n } }, setAside: 2 });
  });
});

describe('the price band', () => {
  const band = { reference: P('3000'), bandBps: 1000 };

  it('bounds every level within bandBps of the reference, inclusive', () => {
    assert.deepEqual(bandLimits(band), { min: P('2700'), max: P('3300') });
    assert.ok(ladderTop([['3300', '1'], ['2700', '1']], [], 18, band));
    assert.deepEqual(refusal(() => ladderTop([], [['3300.000000000000000001', '1']], 18, band)), { code: 'INVALID_REQUEST', field: 'asks[0][0]', reason: 'outsideBand' });
    assert.deepEqual(refusal(() => ladderTop([['3000', '1'], ['2699.99', '1']], [], 18, band)), { code: 'INVALID_REQUEST', field: 'bids[1][0]', reason: 'outsideBand' });
    assert.deepEqual(refusal(() => ladderTop([], [['1' + '0'.repeat(45), '1']], 18, band)), { code: 'INVALID_REQUEST', field: 'asks[0][0]', reason: 'outsideBand' });
  });

  it('names the reference and the bounds in the refusal', () => {
    try {
      ladderTop([['4000', '1']], [], 18, band);
      assert.fail('expected a refusal');
    } catch (error) {
      assert.ok(error instanceof ServiceError);
      assert.deepEqual([error.details?.reference, error.details?.bandBps, error.details?.min, error.details?.max], ['3000', 1000, '2700', '3300']);
    }
  });

  it('does not band without a reference or with the band at 0', () => {
    assert.ok(ladderTop([['1' + '0'.repeat(45), '1']], [], 18, null));
    assert.ok(ladderTop([['1' + '0'.repeat(45), '1']], [], 18, { reference: P('3000'), bandBps: 0 }));
  });

  it('rounds inward: the lower bound up, the upper down', () => {
    fc.assert(
      fc.property(fc.bigInt(1n, 10n ** 30n), fc.integer({ min: 1, max: 10_000 }), (reference, bandBps) => {
        const { min, max } = bandLimits({ reference, bandBps });
        assert.ok(min * 10_000n >= reference * BigInt(10_000 - bandBps) && (min - 1n) * 10_000n < reference * BigInt(10_000 - bandBps) || min === 1n);
        assert.ok(max * 10_000n <= reference * BigInt(10_000 + bandBps) && (max + 1n) * 10_000n > reference * BigInt(10_000 + bandBps));
      }),
    );
  });
});
