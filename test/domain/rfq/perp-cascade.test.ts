import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crossesTakerPrice, rankCascade } from '../../../src/domain/rfq/perp-cascade.ts';
import type { QuoteTerms, RfqTerms } from '../../../src/domain/rfq/index.ts';

const D = { baseDecimals: 8, quoteDecimals: 6 };
const COIN = 10n ** 8n;
const USDC = 10n ** 6n;
const T0 = 1_700_000_000_000;

function rfq(side: 'BUY' | 'SELL'): RfqTerms {
  return { side, baseQty: COIN / 10n, quoteLimit: side === 'BUY' ? 400n * USDC : 300n * USDC, takerFeeTenthBp: 0, autoAccept: false, auctionEndsAt: T0 + 60_000, base: 'ETH', quote: 'USDC', instrumentType: 'PERP' };
}

function quote(id: string, side: 'BUY' | 'SELL', usdcMicro: bigint, receivedAt = T0): QuoteTerms {
  const base = { token: 'ETH', amount: COIN / 10n };
  const usdc = { token: 'USDC', amount: usdcMicro };
  return { quoteId: id, status: 'SUBMITTED', receivedAt, acceptableForMs: null, ...(side === 'BUY' ? { makerPays: base, makerReceives: usdc } : { makerPays: usdc, makerReceives: base }) };
}

describe('perp cascade', () => {
  it('BUY: a maker price at or below p is crossed, above is not (exact)', () => {
    assert.ok(crossesTakerPrice(rfq('BUY'), quote('a', 'BUY', 350_010_000n), '3500.1', D));
    assert.ok(crossesTakerPrice(rfq('BUY'), quote('a', 'BUY', 350_009_999n), '3500.1', D));
    assert.ok(!crossesTakerPrice(rfq('BUY'), quote('a', 'BUY', 350_010_001n), '3500.1', D));
  });

  it('SELL: a maker price at or above p is crossed', () => {
    assert.ok(crossesTakerPrice(rfq('SELL'), quote('a', 'SELL', 349_980_000n), '3499.8', D));
    assert.ok(crossesTakerPrice(rfq('SELL'), quote('a', 'SELL', 349_990_000n), '3499.8', D));
    assert.ok(!crossesTakerPrice(rfq('SELL'), quote('a', 'SELL', 349_979_999n), '3499.8', D));
  });

  it('ranks the crossed others best price first, then earliest, leaving out the winner and the uncrossed', () => {
    const quotes = [quote('w', 'BUY', 350_010_000n), quote('late', 'BUY', 350_000_000n, T0 + 5), quote('early', 'BUY', 350_000_000n, T0 + 1), quote('best', 'BUY', 349_000_000n), quote('above', 'BUY', 351_000_000n)];
    assert.deepEqual(rankCascade(rfq('BUY'), quotes, 'w', '3500.1', D, T0 + 10), ['best', 'early', 'late']);
    assert.deepEqual(rankCascade(rfq('BUY'), quotes.map((q) => ({ ...q, status: q.quoteId === 'best' ? 'CANCELLED' as const : q.status })), 'w', '3500.1', D, T0 + 10), ['early', 'late']);
  });
});
