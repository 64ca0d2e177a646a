import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ServiceError } from '../../../src/domain/errors.ts';
import { checkQuoteLegs, checkQuoteTarget, makerBaseQty } from '../../../src/domain/rfq/index.ts';
import type { QuoteLegs, RfqTerms } from '../../../src/domain/rfq/index.ts';
import { ETH, USDC, rfqArb, rfqTerms } from './fixtures.ts';

function legsMismatch(reason: string, field: string) {
  return (error: unknown) =>
    error instanceof ServiceError && error.code === 'LEGS_MISMATCH' && error.details?.['reason'] === reason && error.details['field'] === field;
}

const buy = rfqTerms({ side: 'BUY', baseQty: ETH, takerFeeTenthBp: 25 });
const sell = rfqTerms({ side: 'SELL', baseQty: ETH, takerFeeTenthBp: 25 });
const sellMakerQty = ETH - 250_000_000_000_000n;

const goodBuy: QuoteLegs = { makerPays: { token: 'ETH', amount: ETH }, makerReceives: { token: 'USDC', amount: 3_000n * USDC } };
const goodSell: QuoteLegs = { makerPays: { token: 'USDC', amount: 3_000n * USDC }, makerReceives: { token: 'ETH', amount: sellMakerQty } };

describe('checkQuoteLegs', () => {
  it('accepts consistent legs on a BUY and a SELL', () => {
    checkQuoteLegs(buy, goodBuy);
    checkQuoteLegs(sell, goodSell);
  });

  it('accepts any consistent legs (property)', () => {
    fc.assert(
      fc.property(rfqArb, fc.bigInt(1n, 10n ** 30n), (rfq, price) => {
        fc.pre(makerBaseQty(rfq) > 0n);
        const base = { token: rfq.base, amount: makerBaseQty(rfq) };
        const quote = { token: rfq.quote, amount: price };
        checkQuoteLegs(rfq, rfq.side === 'BUY' ? { makerPays: base, makerReceives: quote } : { makerPays: quote, makerReceives: base });
      }),
    );
  });

  const refusals: [string, RfqTerms, QuoteLegs, string, string][] = [
    ['BUY: maker pays the quote token', buy, { ...goodBuy, makerPays: { token: 'USDC', amount: ETH } }, 'token', 'makerPays.token'],
    ['BUY: legs swapped', buy, { makerPays: goodBuy.makerReceives, makerReceives: goodBuy.makerPays }, 'token', 'makerPays.token'],
    ['BUY: maker receives another token', buy, { ...goodBuy, makerReceives: { token: 'USDT', amount: 1n } }, 'token', 'makerReceives.token'],
    ['BUY: token case differs', buy, { ...goodBuy, makerPays: { token: 'eth', amount: ETH } }, 'token', 'makerPays.token'],
    ['BUY: base short by one unit', buy, { ...goodBuy, makerPays: { token: 'ETH', amount: ETH - 1n } }, 'baseQty', 'makerPays.amount'],
    ['BUY: base over by one unit', buy, { ...goodBuy, makerPays: { token: 'ETH', amount: ETH + 1n } }, 'baseQty', 'makerPays.amount'],
    ['BUY: zero price', buy, { ...goodBuy, makerReceives: { token: 'USDC', amount: 0n } }, 'amount', 'makerReceives.amount'],
    ['BUY: negative price', buy, { ...goodBuy, makerReceives: { token: 'USDC', amount: -1n } }, 'amount', 'makerReceives.amount'],
    ['BUY: zero base', buy, { ...goodBuy, makerPays: { token: 'ETH', amount: 0n } }, 'amount', 'makerPays.amount'],
    ['SELL: maker receives the quote token', sell, { ...goodSell, makerReceives: { token: 'USDC', amount: sellMakerQty } }, 'token', 'makerReceives.token'],
    ['SELL: maker pays the base token', sell, { ...goodSell, makerPays: { token: 'ETH', amount: 1n } }, 'token', 'makerPays.token'],
    ['SELL: quoted on the full baseQty (fee not carved out)', sell, { ...goodSell, makerReceives: { token: 'ETH', amount: ETH } }, 'baseQty', 'makerReceives.amount'],
    ['SELL: quoted one unit under baseQty - fee', sell, { ...goodSell, makerReceives: { token: 'ETH', amount: sellMakerQty - 1n } }, 'baseQty', 'makerReceives.amount'],
    ['SELL: zero price', sell, { ...goodSell, makerPays: { token: 'USDC', amount: 0n } }, 'amount', 'makerPays.amount'],
  ];
  for (const [name, rfq, legs, reason, field] of refusals) {
    it(`refuses ${name} (${reason} at ${field})`, () => {
      assert.throws(() => checkQuoteLegs(rfq, legs), legsMismatch(reason, field));
    });
  }

  it('PERP SELL: the base leg is the full baseQty', () => {
    const perpSell = rfqTerms({ side: 'SELL', baseQty: ETH, takerFeeTenthBp: 25, instrumentType: 'PERP' });
    checkQuoteLegs(perpSell, { ...goodSell, makerReceives: { token: 'ETH', amount: ETH } });
    assert.throws(() => checkQuoteLegs(perpSell, goodSell), legsMismatch('baseQty', 'makerReceives.amount'));
  });
});

describe('checkQuoteTarget', () => {
  const rfq = { instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const };

  it('accepts the RFQ own instrument and side', () => {
    checkQuoteTarget(rfq, { instrumentId: 'ETH-USDC-SPOT', side: 'BUY' });
  });

  it('refuses another instrument (reason instrument)', () => {
    assert.throws(() => checkQuoteTarget(rfq, { instrumentId: 'BTC-USDC-SPOT', side: 'BUY' }), legsMismatch('instrument', 'instrumentId'));
  });

  it('refuses the other side (reason side)', () => {
    assert.throws(() => checkQuoteTarget(rfq, { instrumentId: 'ETH-USDC-SPOT', side: 'SELL' }), legsMismatch('side', 'side'));
  });
});
