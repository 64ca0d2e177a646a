/**
 * The RFQ state machine (spec, "States and transitions", RFQ). The only code that decides an
 * RFQ's next status. Each event is allowed from exactly one status; anything else is a named
 * refusal:
 * - events that need a PENDING RFQ (accept, auction end, taker cancel, perp refusal) are refused
 *   with RFQ_NOT_PENDING, the code the taker sees when the RFQ has moved on;
 * - settlement outcomes need a QUOTED RFQ; arriving on any other status is an internal race or
 *   bug, refused with CONFLICT.
 * Time conditions (taker cancel before `auctionEndsAt`) and mode conditions (`autoAccept`) are
 * the caller's: see `assertAuctionOpen` and `auctionEndEvent`.
 */
import { ServiceError } from '../errors.ts';
import type { ErrorCode } from '../error-codes.ts';
import type { RfqStatus } from './types.ts';

export type RfqEvent =
  /** Taker accepts a quote (taker-driven, or an autoAccept RFQ before the deadline). */
  | 'accept'
  /** Auction deadline, autoAccept, a conforming quote exists: it is selected. */
  | 'autoSelect'
  /** Auction deadline, autoAccept, no conforming quote: FAILED, locks released. */
  | 'auctionEndNoConformingQuote'
  /** Auction deadline, taker-driven, no accept: CANCELLED (DESIGN.md section 4). */
  | 'auctionEndNoAccept'
  /** Taker calls the RFQ off before the deadline. */
  | 'takerCancel'
  /** Settlement (spot) or execution (perp) completed. */
  | 'settled'
  /** Settlement or perp execution did not complete. */
  | 'settlementFailed'
  /** A perp accept was refused after the 202: the RFQ stays PENDING. */
  | 'perpRefused';

export const RFQ_EVENTS = [
  'accept',
  'autoSelect',
  'auctionEndNoConformingQuote',
  'auctionEndNoAccept',
  'takerCancel',
  'settled',
  'settlementFailed',
  'perpRefused',
] as const satisfies readonly RfqEvent[];

interface RfqRule {
  from: RfqStatus;
  to: RfqStatus;
  refusal: ErrorCode;
}

const RULES = {
  accept: { from: 'PENDING', to: 'QUOTED', refusal: 'RFQ_NOT_PENDING' },
  autoSelect: { from: 'PENDING', to: 'QUOTED', refusal: 'RFQ_NOT_PENDING' },
  auctionEndNoConformingQuote: { from: 'PENDING', to: 'FAILED', refusal: 'RFQ_NOT_PENDING' },
  auctionEndNoAccept: { from: 'PENDING', to: 'CANCELLED', refusal: 'RFQ_NOT_PENDING' },
  takerCancel: { from: 'PENDING', to: 'CANCELLED', refusal: 'RFQ_NOT_PENDING' },
  perpRefused: { from: 'PENDING', to: 'PENDING', refusal: 'RFQ_NOT_PENDING' },
  settled: { from: 'QUOTED', to: 'SETTLED', refusal: 'CONFLICT' },
  settlementFailed: { from: 'QUOTED', to: 'FAILED', refusal: 'CONFLICT' },
} as const satisfies Record<RfqEvent, RfqRule>;

/** The status `event` leads to, as a type: callers keep the narrow union without a cast. */
export type RfqStatusAfter<E extends RfqEvent> = (typeof RULES)[E]['to'];

/**
 * The status after `event`, or a refusal.
 * @throws ServiceError RFQ_NOT_PENDING or CONFLICT, with `details.status` and `details.event`.
 */
export function transitionRfq<E extends RfqEvent>(status: RfqStatus, event: E): RfqStatusAfter<E> {
  const rule: RfqRule = RULES[event];
  if (status !== rule.from) {
    throw new ServiceError(rule.refusal, `RFQ is ${status}; ${event} needs ${rule.from}`, { status, event });
  }
  return rule.to as RfqStatusAfter<E>;
}

/** SETTLED, FAILED and CANCELLED are terminal. */
export function isTerminalRfq(status: RfqStatus): boolean {
  return status === 'SETTLED' || status === 'FAILED' || status === 'CANCELLED';
}

/**
 * The event for an auction reaching its deadline while the RFQ is still PENDING.
 * `hasConformingQuote` is `selectBest(...) !== null`, evaluated as of `auctionEndsAt`.
 */
export function auctionEndEvent(autoAccept: boolean, hasConformingQuote: boolean): 'autoSelect' | 'auctionEndNoConformingQuote' | 'auctionEndNoAccept' {
  if (!autoAccept) return 'auctionEndNoAccept';
  return hasConformingQuote ? 'autoSelect' : 'auctionEndNoConformingQuote';
}
