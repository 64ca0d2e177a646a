import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertBalanced,
  depositPostings,
  promisedDeliveryPostings,
  promisedPayoutPostings,
  settledAfterFailurePostings,
  spotSettlementPostings,
  takerFeePostings,
  withdrawalPostings,
  type Posting,
} from '../../../src/domain/ledger/index.ts';

const TAKER = '00000000-0000-4000-8000-000000000001';
const USDC = (amount: bigint) => ({ token: 'USDC', amount });
const WETH = (amount: bigint) => ({ token: 'WETH', amount });

/** What each book gains or loses per token, the way an auditor reads a movement. */
function net(postings: Posting[]): Record<string, string> {
  const sums: Record<string, bigint> = {};
  for (const p of postings) {
    const key = `${p.book}${p.accountId ? `:${p.accountId}` : ''}${p.fromLocked ? ':locked' : ''}:${p.token}:${p.source}`;
    sums[key] = (sums[key] ?? 0n) + p.delta;
  }
  return Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v.toString()]));
}

describe('ledger posting sets', () => {
  it('spot settlement: pay leg from the lock to custody, receive leg from custody, fee to the fees book', () => {
    const postings = spotSettlementPostings({ taker: TAKER, paid: USDC(3000n), received: WETH(1n), fee: 3n });
    assertBalanced(postings);
    assert.deepEqual(net(postings), {
      [`user:${TAKER}:locked:USDC:SETTLEMENT`]: '-3000',
      'custody:USDC:SETTLEMENT': '3000',
      [`user:${TAKER}:WETH:SETTLEMENT`]: '1',
      'custody:WETH:SETTLEMENT': '-1',
      [`user:${TAKER}:locked:USDC:FEE`]: '-3',
      'fees:USDC:FEE': '3',
    });
  });

  it('a zero fee posts nothing for the fee', () => {
    assert.deepEqual(takerFeePostings(TAKER, USDC(0n)), []);
    assert.equal(spotSettlementPostings({ taker: TAKER, paid: USDC(5n), received: WETH(1n), fee: 0n }).length, 4);
  });

  it('promised delivery: the pay leg is owed to the maker (maker_settlement), the receive leg came into custody', () => {
    const postings = promisedDeliveryPostings({ taker: TAKER, paid: USDC(3000n), received: WETH(1n), fee: 3n });
    assertBalanced(postings);
    assert.deepEqual(net(postings), {
      [`user:${TAKER}:WETH:SETTLEMENT`]: '1',
      'custody:WETH:SETTLEMENT': '-1',
      [`user:${TAKER}:locked:USDC:SETTLEMENT`]: '-3000',
      'maker_settlement:USDC:SETTLEMENT': '3000',
      [`user:${TAKER}:locked:USDC:FEE`]: '-3',
      'fees:USDC:FEE': '3',
    });
  });

  it('promised payout clears what the service owed the maker', () => {
    const postings = promisedPayoutPostings(USDC(3000n));
    assertBalanced(postings);
    assert.deepEqual(net(postings), { 'maker_settlement:USDC:SETTLEMENT': '-3000', 'custody:USDC:SETTLEMENT': '3000' });
  });

  it('withdrawal debits the consumed lock against custody', () => {
    const postings = withdrawalPostings(TAKER, USDC(70n));
    assertBalanced(postings);
    assert.deepEqual(net(postings), { [`user:${TAKER}:locked:USDC:WITHDRAWAL`]: '-70', 'custody:USDC:WITHDRAWAL': '70' });
  });

  it('deposit credits the sender, or unattributed when no account has its address', () => {
    assert.deepEqual(net(depositPostings(TAKER, USDC(9n))), { [`user:${TAKER}:USDC:DEPOSIT`]: '9', 'custody:USDC:DEPOSIT': '-9' });
    assert.deepEqual(net(depositPostings(null, USDC(9n))), { 'unattributed:USDC:DEPOSIT': '9', 'custody:USDC:DEPOSIT': '-9' });
  });

  it('a settlement after failure books both custody legs against suspense', () => {
    const postings = settledAfterFailurePostings({ makerReceives: USDC(3000n), makerPays: WETH(1n) });
    assertBalanced(postings);
    assert.deepEqual(net(postings), { 'custody:USDC:SETTLEMENT': '3000', 'suspense:USDC:SETTLEMENT': '-3000', 'custody:WETH:SETTLEMENT': '-1', 'suspense:WETH:SETTLEMENT': '1' });
  });

  it('assertBalanced refuses a movement that does not sum to zero per token', () => {
    assert.throws(() => assertBalanced([...withdrawalPostings(TAKER, USDC(70n)), ...depositPostings(TAKER, WETH(1n)).slice(0, 1)]), /does not balance for WETH/);
  });
});
