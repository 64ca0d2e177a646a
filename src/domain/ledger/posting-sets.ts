/**
 * The ledger posting sets, each built once here (custody convention, TEAM.md: custody is the
 * counter-book of every user movement; the fee stays in custody as the service's claim). Pure:
 * callers book the result with `postMovement` (src/store/ledger.ts).
 */
import type { Posting } from './postings.ts';

export interface Amount {
  token: string;
  amount: bigint;
}

/**
 * The taker's fee, from the lock consumed at settlement, to the fees book. Empty on a zero fee.
 */
export function takerFeePostings(taker: string, fee: Amount): Posting[] {
  if (fee.amount === 0n) return [];
  return [
    { book: 'user', accountId: taker, token: fee.token, rail: 'EVM', delta: -fee.amount, source: 'FEE', fromLocked: true },
    { book: 'fees', token: fee.token, rail: 'EVM', delta: fee.amount, source: 'FEE' },
  ];
}

/**
 * An on-chain spot settlement (permit2, xchange): the taker's pay leg (from its consumed lock)
 * left custody to the maker, the maker's leg arrived in custody for the taker, plus the fee.
 */
export function spotSettlementPostings(s: { taker: string; paid: Amount; received: Amount; fee: bigint }): Posting[] {
  return [
    { book: 'user', accountId: s.taker, token: s.paid.token, rail: 'EVM', delta: -s.paid.amount, source: 'SETTLEMENT', fromLocked: true },
    { book: 'custody', token: s.paid.token, rail: 'EVM', delta: s.paid.amount, source: 'SETTLEMENT' },
    { book: 'user', accountId: s.taker, token: s.received.token, rail: 'EVM', delta: s.received.amount, source: 'SETTLEMENT' },
    { book: 'custody', token: s.received.token, rail: 'EVM', delta: -s.received.amount, source: 'SETTLEMENT' },
    ...takerFeePostings(s.taker, { token: s.paid.token, amount: s.fee }),
  ];
}

/**
 * One settled leg of a SWEEP RFQ: on chain (permit2, `paidTo` custody) as a spot settlement, or a
 * promised delivery (`paidTo` maker_settlement, paid out later), except that on a SELL the fee is
 * in the quote token, taken from what the taker just received rather than from its lock (no base
 * is carved out of a sweep).
 */
export function sweepLegPostings(s: { side: 'BUY' | 'SELL'; taker: string; paid: Amount; received: Amount; fee: bigint; paidTo?: 'custody' | 'maker_settlement' }): Posting[] {
  const settle = s.paidTo === 'maker_settlement' ? promisedDeliveryPostings : spotSettlementPostings;
  if (s.side === 'BUY') return settle(s);
  const postings = settle({ ...s, fee: 0n });
  if (s.fee === 0n) return postings;
  return [
    ...postings,
    { book: 'user', accountId: s.taker, token: s.received.token, rail: 'EVM', delta: -s.fee, source: 'FEE' },
    { book: 'fees', token: s.received.token, rail: 'EVM', delta: s.fee, source: 'FEE' },
  ];
}

/**
 * A promised delivery: the maker's leg arrived in custody for the taker; the taker's pay leg
 * (from its consumed lock) is now owed to the maker (`maker_settlement`, paid out later); the fee.
 */
export function promisedDeliveryPostings(s: { taker: string; paid: Amount; received: Amount; fee: bigint }): Posting[] {
  return [
    { book: 'user', accountId: s.taker, token: s.received.token, rail: 'EVM', delta: s.received.amount, source: 'SETTLEMENT' },
    { book: 'custody', token: s.received.token, rail: 'EVM', delta: -s.received.amount, source: 'SETTLEMENT' },
    { book: 'user', accountId: s.taker, token: s.paid.token, rail: 'EVM', delta: -s.paid.amount, source: 'SETTLEMENT', fromLocked: true },
    { book: 'maker_settlement', token: s.paid.token, rail: 'EVM', delta: s.paid.amount, source: 'SETTLEMENT' },
    ...takerFeePostings(s.taker, { token: s.paid.token, amount: s.fee }),
  ];
}

/** The promised payout confirmed on chain: what the service owed the maker left custody. */
export function promisedPayoutPostings(payout: Amount): Posting[] {
  return [
    { book: 'maker_settlement', token: payout.token, rail: 'EVM', delta: -payout.amount, source: 'SETTLEMENT' },
    { book: 'custody', token: payout.token, rail: 'EVM', delta: payout.amount, source: 'SETTLEMENT' },
  ];
}

/** A completed withdrawal: the user's locked funds left custody. */
export function withdrawalPostings(accountId: string, amount: Amount): Posting[] {
  return [
    { book: 'user', accountId, token: amount.token, rail: 'EVM', delta: -amount.amount, source: 'WITHDRAWAL', fromLocked: true },
    { book: 'custody', token: amount.token, rail: 'EVM', delta: amount.amount, source: 'WITHDRAWAL' },
  ];
}

/** A final deposit: credited to its sender's account, or to `unattributed` when no account has that address. */
export function depositPostings(accountId: string | null, amount: Amount): Posting[] {
  return [
    accountId
      ? { book: 'user', accountId, token: amount.token, rail: 'EVM', delta: amount.amount, source: 'DEPOSIT' }
      : { book: 'unattributed', token: amount.token, rail: 'EVM', delta: amount.amount, source: 'DEPOSIT' },
    { book: 'custody', token: amount.token, rail: 'EVM', delta: -amount.amount, source: 'DEPOSIT' },
  ];
}

/**
 * A settlement observed on chain after the service failed the trade: custody moved both legs,
 * booked against `suspense` for the operator to resolve.
 */
export function settledAfterFailurePostings(s: { makerReceives: Amount; makerPays: Amount }): Posting[] {
  return [
    { book: 'custody', token: s.makerReceives.token, rail: 'EVM', delta: s.makerReceives.amount, source: 'SETTLEMENT' },
    { book: 'suspense', token: s.makerReceives.token, rail: 'EVM', delta: -s.makerReceives.amount, source: 'SETTLEMENT' },
    { book: 'custody', token: s.makerPays.token, rail: 'EVM', delta: -s.makerPays.amount, source: 'SETTLEMENT' },
    { book: 'suspense', token: s.makerPays.token, rail: 'EVM', delta: s.makerPays.amount, source: 'SETTLEMENT' },
  ];
}
