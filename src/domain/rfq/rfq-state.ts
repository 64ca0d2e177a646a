/**
 * The RFQ state machine (spec, "States and transitions", RFQ). The only code that decides an
 * RFQ's next status, what the transition does to the taker's lock and which frames it pushes
 * (`decideRfq`); the use cases apply the lock effect, the settlement's postings come from
 * src/domain/ledger, and the status and frames are persisted by src/services/rfq/persist-transition.ts
 * (through src/store/rfq-status.ts). Each event is allowed from exactly one status; anything
 * else is a named refusal:
 * - events that need a PENDING RFQ (accept, auction end, taker cancel, perp refusal) are refused
 *   with RFQ_NOT_PENDING, the code the taker sees when the RFQ has moved on;
 * - settlement outcomes need a QUOTED RFQ; arriving on any other status is an internal race or
 *   bug, refused with CONFLICT.
 * Time conditions (taker cancel before `auctionEndsAt`) and mode conditions (`autoAccept`) are
 * the caller's: see `assertAuctionOpen` and `auctionEndEvent`.
 */
import type { ErrorCode } from '../error-codes.ts';
import type { Frame } from '../frames.ts';
import { decideRule } from '../state-machine.ts';
import type { InstrumentType, RfqStatus } from './types.ts';

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

/**
 * What a transition does to the taker's lock on its pay leg. A spot RFQ holds one from selection
 * (an autoAccept RFQ from submission, for its bound); a taker-driven RFQ holds none while PENDING;
 * a perp RFQ never holds one (the taker trades from its venue account), so its effects find none.
 */
export type TakerLockEffect =
  /** Nothing changes. */
  | 'none'
  /** Lock exactly what the winner costs; an autoAccept RFQ's bound is given back first. */
  | 'lockWinnerCost'
  /** Give the lock back to available, if there is one. */
  | 'release'
  /** End the lock into the settlement's postings (src/domain/ledger): the funds leave the taker. */
  | 'consume';

interface RfqRule {
  from: RfqStatus;
  to: RfqStatus;
  takerLock: TakerLockEffect;
  refusal: ErrorCode;
}

const RULES = {
  accept: { from: 'PENDING', to: 'QUOTED', takerLock: 'lockWinnerCost', refusal: 'RFQ_NOT_PENDING' },
  autoSelect: { from: 'PENDING', to: 'QUOTED', takerLock: 'lockWinnerCost', refusal: 'RFQ_NOT_PENDING' },
  auctionEndNoConformingQuote: { from: 'PENDING', to: 'FAILED', takerLock: 'release', refusal: 'RFQ_NOT_PENDING' },
  auctionEndNoAccept: { from: 'PENDING', to: 'CANCELLED', takerLock: 'none', refusal: 'RFQ_NOT_PENDING' },
  takerCancel: { from: 'PENDING', to: 'CANCELLED', takerLock: 'release', refusal: 'RFQ_NOT_PENDING' },
  perpRefused: { from: 'PENDING', to: 'PENDING', takerLock: 'none', refusal: 'RFQ_NOT_PENDING' },
  settled: { from: 'QUOTED', to: 'SETTLED', takerLock: 'consume', refusal: 'CONFLICT' },
  settlementFailed: { from: 'QUOTED', to: 'FAILED', takerLock: 'release', refusal: 'CONFLICT' },
} as const satisfies Record<RfqEvent, RfqRule>;

/** The status `event` leads to, as a type: callers keep the narrow union without a cast. */
export type RfqStatusAfter<E extends RfqEvent> = (typeof RULES)[E]['to'];
/** The lock effect of `event`, as a type. */
export type TakerLockAfter<E extends RfqEvent> = (typeof RULES)[E]['takerLock'];

/** What the machine needs to know of an RFQ beyond its status: whom it tells and whether its taker holds a lock. */
export interface RfqState {
  id: string;
  status: RfqStatus;
  takerAccountId: string;
  autoAccept: boolean;
  instrumentType: InstrumentType;
}

export interface RfqDecision<E extends RfqEvent> {
  status: RfqStatusAfter<E>;
  takerLock: TakerLockAfter<E>;
  /**
   * Pushed in this order: the RFQ to its taker on every status change (a perp refusal leaves the
   * RFQ as it is and pushes nothing of it), then the taker's balances when its lock changed.
   */
  frames: Frame[];
}

/**
 * Whether the taker holds a lock on its pay leg for this RFQ: a spot RFQ once QUOTED, and an
 * autoAccept one from submission (its bound); never a perp one (the taker trades from its venue
 * account).
 */
export function holdsTakerLock(rfq: Pick<RfqState, 'status' | 'autoAccept' | 'instrumentType'>): boolean {
  if (rfq.instrumentType === 'PERP') return false;
  return rfq.status === 'QUOTED' || (rfq.status === 'PENDING' && rfq.autoAccept);
}

/**
 * The status after `event`, its effect on the taker's lock and the frames it pushes, or a refusal.
 * @throws ServiceError RFQ_NOT_PENDING or CONFLICT, with `details.status` and `details.event`.
 */
export function decideRfq<E extends RfqEvent>(rfq: RfqState, event: E): RfqDecision<E> {
  const rule: RfqRule = decideRule<RfqStatus, RfqEvent, RfqRule>('RFQ', RULES, rfq.status, event);
  const frames: Frame[] = rule.to === rfq.status ? [] : [{ kind: 'rfqStatus', rfqId: rfq.id }];
  const lockChanges = rule.takerLock === 'lockWinnerCost' ? rfq.instrumentType !== 'PERP' : rule.takerLock !== 'none' && holdsTakerLock(rfq);
  if (lockChanges) frames.push({ kind: 'balances', accountId: rfq.takerAccountId });
  return { status: rule.to, takerLock: rule.takerLock, frames } as RfqDecision<E>;
}

/**
 * A new RFQ (spec: "RFQ submitted"): PENDING, and its frames in push order: the taker's balances
 * when it locked its bound (autoAccept), the RFQ to its taker, the open RFQ to every maker.
 */
export function submitRfq(rfq: Omit<RfqState, 'status'>): { status: 'PENDING'; frames: Frame[] } {
  const created = { ...rfq, status: 'PENDING' as const };
  return {
    status: 'PENDING',
    frames: [
      ...(holdsTakerLock(created) ? [{ kind: 'balances', accountId: rfq.takerAccountId } as const] : []),
      { kind: 'rfqStatus', rfqId: rfq.id },
      { kind: 'openRfq', rfqId: rfq.id },
    ],
  };
}

/** The status after `event`, or a refusal (as `decideRfq`), for callers with no lock to act on. */
export function transitionRfq<E extends RfqEvent>(status: RfqStatus, event: E): RfqStatusAfter<E> {
  return decideRule<RfqStatus, RfqEvent, RfqRule>('RFQ', RULES, status, event).to as RfqStatusAfter<E>;
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
