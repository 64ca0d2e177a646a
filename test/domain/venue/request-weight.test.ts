/** The venue's request weights (its rate-limits document) and the budget's admission by priority. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admits, replyWeight, requestWeight, slidingWeight } from '../../../src/domain/venue/request-weight.ts';

describe('venue request weight', () => {
  const cases: Array<[string, 'info' | 'exchange', unknown, number]> = [
    ['one order', 'exchange', { action: { type: 'order', orders: [{}] } }, 1],
    ['a batch of 39 orders', 'exchange', { action: { type: 'order', orders: Array(39).fill({}) } }, 1],
    ['a batch of 40 orders', 'exchange', { action: { type: 'order', orders: Array(40).fill({}) } }, 2],
    ['a batch of 85 cancels', 'exchange', { action: { type: 'cancel', cancels: Array(85).fill({}) } }, 3],
    ['an action without a batch', 'exchange', { action: { type: 'approveBuilderFee' } }, 1],
    ['l2Book', 'info', { type: 'l2Book', coin: 'ETH' }, 2],
    ['allMids', 'info', { type: 'allMids' }, 2],
    ['clearinghouseState', 'info', { type: 'clearinghouseState', user: '0x' }, 2],
    ['orderStatus', 'info', { type: 'orderStatus', user: '0x', oid: 1 }, 2],
    ['spotClearinghouseState', 'info', { type: 'spotClearinghouseState', user: '0x' }, 2],
    ['exchangeStatus', 'info', { type: 'exchangeStatus' }, 2],
    ['userRole', 'info', { type: 'userRole', user: '0x' }, 60],
    ['meta', 'info', { type: 'meta' }, 20],
    ['extraAgents', 'info', { type: 'extraAgents', user: '0x' }, 20],
    ['userNonFundingLedgerUpdates', 'info', { type: 'userNonFundingLedgerUpdates', user: '0x', startTime: 0 }, 20],
    ['userFillsByTime', 'info', { type: 'userFillsByTime', user: '0x', startTime: 0 }, 20],
  ];
  for (const [name, endpoint, payload, weight] of cases) {
    it(`${name} weighs ${weight}`, () => assert.equal(requestWeight(endpoint, payload), weight));
  }

  it('the fill and order histories add 1 per 20 items returned; other replies add nothing', () => {
    assert.equal(replyWeight('info', { type: 'userFillsByTime' }, Array(19).fill({})), 0);
    assert.equal(replyWeight('info', { type: 'userFillsByTime' }, Array(40).fill({})), 2);
    assert.equal(replyWeight('info', { type: 'userFills' }, Array(2000).fill({})), 100);
    assert.equal(replyWeight('info', { type: 'historicalOrders' }, Array(60).fill({})), 3);
    assert.equal(replyWeight('info', { type: 'userNonFundingLedgerUpdates' }, Array(500).fill({})), 0);
    assert.equal(replyWeight('exchange', { type: 'userFills' }, Array(40).fill({})), 0);
  });

  it('the last minute counts the previous window for the part of it still inside the minute', () => {
    assert.equal(slidingWeight(100, 600, 0, 60_000), 700);
    assert.equal(slidingWeight(100, 600, 30_000, 60_000), 400);
    assert.equal(slidingWeight(100, 600, 60_000, 60_000), 100);
  });

  it('lower priorities stop first as the minute fills: background at half, quotes at three quarters, execution reads at nine tenths, sends at all', () => {
    const budget = 1000;
    const fits = (used: number) => ([1, 2, 3, 4] as const).filter((p) => admits(used, 20, budget, p));
    assert.deepEqual(fits(0), [1, 2, 3, 4]);
    assert.deepEqual(fits(480), [1, 2, 3, 4]);
    assert.deepEqual(fits(481), [1, 2, 3]);
    assert.deepEqual(fits(731), [1, 2]);
    assert.deepEqual(fits(881), [1]);
    assert.deepEqual(fits(981), []);
  });
});
