/**
 * The `/v0` order state machine (spec v0, "Order status values"; DESIGN.md section 10; the
 * transitions are ours, the spec shows none). The only code that decides an order's next status
 * and what happens to its lock; the status is written by src/store/v0-order-status.ts.
 *
 *   pending --rest--> open                       (the venue acknowledged a resting GTC order)
 *   pending | open --refuse--> failed             (the venue refused it: lock released)
 *   pending | open --fillCompletely--> filled     (everything filled: lock released)
 *   pending | open --cancel--> cancelled          (the user's cancel, even after a part filled)
 *   pending | open --endPartlyFilled--> partially_filled (the venue is done with part filled)
 *   pending | open --expire--> expired            (an IOC that matched nothing, never cancelled)
 *
 * Every other (status, event) pair is refused with CONFLICT: the venue's reports arrive for an
 * order the services have locked, so a report for a finished order is a race the caller settles
 * first (`isTerminal`). Which finishing event applies is `finishEvent`.
 */
import { decideRule } from '../state-machine.ts';

export const V0_ORDER_STATUSES = ['pending', 'open', 'filled', 'partially_filled', 'cancelled', 'expired', 'failed'] as const;
export type V0OrderStatus = (typeof V0_ORDER_STATUSES)[number];

export const TERMINAL_STATUSES: readonly V0OrderStatus[] = ['filled', 'partially_filled', 'cancelled', 'expired', 'failed'];

export const V0_ORDER_EVENTS = ['rest', 'refuse', 'fillCompletely', 'cancel', 'endPartlyFilled', 'expire'] as const;
export type V0OrderEvent = (typeof V0_ORDER_EVENTS)[number];

/** What a transition does to the order's lock (the funds it may still spend). */
export type V0OrderLockEffect = 'keep' | 'release';

const LIVE = ['pending', 'open'] as const;

const RULES = {
  rest: { from: 'pending', to: 'open', lock: 'keep', refusal: 'CONFLICT' },
  refuse: { from: LIVE, to: 'failed', lock: 'release', refusal: 'CONFLICT' },
  fillCompletely: { from: LIVE, to: 'filled', lock: 'release', refusal: 'CONFLICT' },
  cancel: { from: LIVE, to: 'cancelled', lock: 'release', refusal: 'CONFLICT' },
  endPartlyFilled: { from: LIVE, to: 'partially_filled', lock: 'release', refusal: 'CONFLICT' },
  expire: { from: LIVE, to: 'expired', lock: 'release', refusal: 'CONFLICT' },
} as const satisfies Record<V0OrderEvent, { from: V0OrderStatus | readonly V0OrderStatus[]; to: V0OrderStatus; lock: V0OrderLockEffect; refusal: 'CONFLICT' }>;

export interface V0OrderDecision {
  status: V0OrderStatus;
  lock: V0OrderLockEffect;
}

/**
 * The status after `event` and its lock effect, or a refusal.
 * @throws ServiceError CONFLICT, with `details.status` and `details.event`.
 */
export function decideV0Order(status: V0OrderStatus, event: V0OrderEvent): V0OrderDecision {
  const rule = decideRule<V0OrderStatus, V0OrderEvent, (typeof RULES)[V0OrderEvent]>('order', RULES, status, event);
  return { status: rule.to, lock: rule.lock };
}

export function isTerminal(status: V0OrderStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/**
 * The event that finishes an order the venue is done with: everything filled is `fillCompletely`;
 * a user's cancel is `cancel` (even after part of it filled, the spec's "cancelled by the user");
 * an order that ended with some fill is `endPartlyFilled`; an IOC that matched nothing `expire`s.
 */
export function finishEvent(amount: bigint, filled: bigint, cancelledByUser: boolean): 'fillCompletely' | 'cancel' | 'endPartlyFilled' | 'expire' {
  if (filled >= amount) return 'fillCompletely';
  if (cancelledByUser) return 'cancel';
  return filled > 0n ? 'endPartlyFilled' : 'expire';
}

/**
 * Which orders `cancelOrder` may cancel: a resting (or not yet acknowledged) GTC order; the spec's
 * "filled, partially filled and cancelled orders cannot be cancelled", nor any other finished one.
 */
export function cancellable(status: V0OrderStatus, tif: 'Ioc' | 'Gtc'): boolean {
  return tif === 'Gtc' && (status === 'open' || status === 'pending');
}
