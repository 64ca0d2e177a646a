import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bidAsk, ladder, perpSweepPart, quoteLegs, seededRandom, stepPrice } from '../../../examples/maker/pricing.ts';

const ETH = { symbol: 'ETH', decimals: 18 };
const USDC = { symbol: 'USDC', decimals: 6 };
const P3000 = 3000_000000n;

describe('reference maker pricing', () => {
  it('the walk is reproducible from its seed and never leaves its band', () => {
    const walk = (seed: number) => {
      const random = seededRandom(seed);
      const prices: bigint[] = [];
      let price = P3000;
      for (let i = 0; i < 2000; i++) prices.push((price = stepPrice(price, { start: P3000, maxStepBp: 5, bandBp: 100 }, random)));
      return prices;
    };
    const a = walk(7);
    assert.deepEqual(a, walk(7));
    assert.notDeepEqual(a, walk(8));
    assert.ok(a.every((p) => p >= 2970_000000n && p <= 3030_000000n));
    // It moves: many distinct prices, not a constant.
    assert.ok(new Set(a).size > 100);
  });

  it('bid and ask sit half the spread either side, rounded away from mid', () => {
    assert.deepEqual(bidAsk(P3000, 10), { bid: 2998_500000n, ask: 3001_500000n });
    assert.deepEqual(bidAsk(7n, 10), { bid: 6n, ask: 8n });
  });

  it('BUY: pays the full baseQty, receives base * ask rounded up', () => {
    assert.deepEqual(quoteLegs({ side: 'BUY', baseQty: '0.5' }, P3000, 10, 10n ** 20n, ETH, USDC), {
      makerPays: { token: 'ETH', amount: '0.5' },
      makerReceives: { token: 'USDC', amount: '1500.75' },
    });
    // 1 wei of ETH at 3001.5 USDC is 3.0015e-12 USDC: rounds up to one micro-unit, never to zero.
    assert.equal(quoteLegs({ side: 'BUY', baseQty: '0.000000000000000001' }, P3000, 10, 10n ** 20n, ETH, USDC)?.makerReceives.amount, '0.000001');
  });

  it('SELL: receives OpenRfq.baseQty, pays base * bid rounded down; nothing when too small or too large', () => {
    assert.deepEqual(quoteLegs({ side: 'SELL', baseQty: '0.333333333333333333' }, P3000, 10, 10n ** 20n, ETH, USDC), {
      makerPays: { token: 'USDC', amount: '999.499999' },
      makerReceives: { token: 'ETH', amount: '0.333333333333333333' },
    });
    assert.equal(quoteLegs({ side: 'SELL', baseQty: '0.000000000000000001' }, P3000, 10, 10n ** 20n, ETH, USDC), null);
    assert.equal(quoteLegs({ side: 'BUY', baseQty: '51' }, P3000, 10, 50n * 10n ** 18n, ETH, USDC), null);
  });

  it('ladder levels are strictly ordered, best first, each one spread further out', () => {
    const { bids, asks } = ladder(P3000, { spreadBp: 10, levels: 3, levelSize: 5n * 10n ** 18n }, ETH, USDC);
    assert.deepEqual(bids, [['2998.5', '5'], ['2997', '5'], ['2995.5', '5']]);
    assert.deepEqual(asks, [['3001.5', '5'], ['3003', '5'], ['3004.5', '5']]);
    // A price so small that levels collapse after rounding: duplicates are dropped, not sent.
    const tiny = ladder(2n, { spreadBp: 10, levels: 3, levelSize: 1n }, ETH, USDC);
    assert.equal(new Set(tiny.asks.map((l) => l[0])).size, tiny.asks.length);
  });

  it('a perp sweep part: a share of the RFQ on the size grid, capped; the whole RFQ when a part would be under the venue minimum', () => {
    // ETH: 4 size decimals; 3500 USDC per coin; the venue's minimum order value is 10 USDC.
    const part = (baseQty: string, shareBp: number, maxBaseQty = '5') => perpSweepPart(baseQty, { shareBp, maxBaseQty, szDecimals: 4, price: 3500_000000n, minNotional: 10_000000n });
    assert.equal(part('0.3', 4000), '0.12');
    // 35 % of 0.3 is 0.105; of 0.33333 it is 0.1166655, rounded down to 0.1166.
    assert.equal(part('0.3', 3500), '0.105');
    assert.equal(part('0.3333', 3500), '0.1166');
    // Capped at the most we quote, still on the grid.
    assert.equal(part('20', 4000, '2.00005'), '2');
    // 40 % of 0.005 ETH is 7 USDC, under the minimum: the whole 17.5 USDC instead.
    assert.equal(part('0.005', 4000), '0.005');
    // Neither a part nor the whole is worth an order; the whole is beyond what we quote.
    assert.equal(part('0.002', 4000), null);
    assert.equal(part('0.01', 100, '0.005'), null);
    // A share of all of it or more is the whole.
    assert.equal(part('0.3', 10_000), '0.3');
  });
});
