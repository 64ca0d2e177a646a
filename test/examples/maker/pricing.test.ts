import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bidAsk, ladder, quoteLegs, seededRandom, stepPrice } from '../../../examples/maker/pricing.ts';

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
});
