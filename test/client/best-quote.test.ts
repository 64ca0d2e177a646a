/** The CLI's choice among quotes (src/client/best-quote.ts): the auction's conformity and price rule. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bestQuote, compareDecimal } from '../../src/client/best-quote.ts';
import type { Quote } from '../../src/client/types.ts';

function quote(id: string, fields: Partial<Quote> & { pay?: string; get?: string }): Quote {
  return {
    rfqId: 'rfq_1', quoteId: id, version: 1, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', status: 'SUBMITTED',
    makerPays: { token: 'ETH', amount: fields.get ?? '1' }, makerReceives: { token: 'USDC', amount: fields.pay ?? '100' },
    takerTotal: fields.pay ?? '100', receivedAt: 1000, ...fields,
  };
}

describe('bestQuote', () => {
  it('compares decimal strings exactly, whatever their places', () => {
    assert.equal(compareDecimal('10', '9.999999999999999999999'), 1);
    assert.equal(compareDecimal('0.1', '0.10'), 0);
    assert.equal(compareDecimal('2', '10'), -1);
  });

  it('BUY: lowest takerTotal within the limit; ties to the earlier quote', () => {
    const quotes = [quote('a', { pay: '101' }), quote('b', { pay: '99.5', receivedAt: 2000 }), quote('c', { pay: '99.5', receivedAt: 1500 }), quote('d', { pay: '90', status: 'CANCELLED' })];
    assert.equal(bestQuote(quotes, 'BUY', { now: 0 })?.quoteId, 'c');
    assert.equal(bestQuote(quotes, 'BUY', { now: 0, quoteLimit: '99' }), undefined);
  });

  it('a tie on price and receivedAt goes to the smaller quoteId, whatever the order the quotes came in', () => {
    const x = quote('qt_b', { pay: '99' });
    const y = quote('qt_a', { pay: '99' });
    assert.equal(bestQuote([x, y], 'BUY', { now: 0 })?.quoteId, 'qt_a');
    assert.equal(bestQuote([y, x], 'BUY', { now: 0 })?.quoteId, 'qt_a');
    const s1 = quote('qt_d', { get: '5' });
    const s2 = quote('qt_c', { get: '5' });
    assert.equal(bestQuote([s1, s2], 'SELL', { now: 0 })?.quoteId, 'qt_c');
    assert.equal(bestQuote([s2, s1], 'SELL', { now: 0 })?.quoteId, 'qt_c');
  });

  it('SELL: highest makerPays within the limit', () => {
    const quotes = [quote('a', { get: '2000' }), quote('b', { get: '2100.5' }), quote('c', { get: '999' })];
    assert.equal(bestQuote(quotes, 'SELL', { now: 0 })?.quoteId, 'b');
    assert.equal(bestQuote([quotes[2]!], 'SELL', { now: 0, quoteLimit: '1000' }), undefined);
  });

  it('passes over a quote whose maker window ends too soon to accept', () => {
    const quotes = [quote('soon', { pay: '90', expiryMs: 5100 }), quote('later', { pay: '95' })];
    assert.equal(bestQuote(quotes, 'BUY', { now: 5000 })?.quoteId, 'soon');
    assert.equal(bestQuote(quotes, 'BUY', { now: 5000, minRemainingMs: 200 })?.quoteId, 'later');
    assert.equal(bestQuote([quote('x', { acceptableForMs: 100 })], 'BUY', { now: 1100 }), undefined, 'receivedAt + acceptableForMs when expiryMs is absent');
  });
});
