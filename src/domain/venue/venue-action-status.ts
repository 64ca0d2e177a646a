/**
 * The venue action state machine: every request the omnibus signs for the venue's `/exchange`
 * (an order, a cancel, a `spotSend`) is stored before it is sent, so a resend reuses its bytes.
 * The only code that decides an action's next status; the status is written by
 * src/store/venue-action-status.ts.
 *
 *   (stored) -> SIGNED, or SENT when the caller sends it right after storing it
 *   SIGNED | SENT --send--> SENT (each send counted; a resend keeps it SENT)
 *   SENT --acknowledge--> ACKED (the venue answered, or knows the order by its client id)
 *   SENT --refuse--> REFUSED (the venue answered with an error)
 *
 * Every other (status, event) pair is refused with CONFLICT: an answer is recorded only for a
 * request that was sent.
 */
import { decideRule, isTerminalIn, ruleTransition, type MachineRule } from '../state-machine.ts';

export const VENUE_ACTION_STATUSES = ['SIGNED', 'SENT', 'ACKED', 'REFUSED'] as const;
export type VenueActionStatus = (typeof VENUE_ACTION_STATUSES)[number];

/** The statuses an action is stored in. */
export type StoredVenueActionStatus = Extract<VenueActionStatus, 'SIGNED' | 'SENT'>;

export const VENUE_ACTION_EVENTS = ['send', 'acknowledge', 'refuse'] as const;
export type VenueActionEvent = (typeof VENUE_ACTION_EVENTS)[number];

type Rule = MachineRule<VenueActionStatus> & { to: VenueActionStatus };

const RULES: Record<VenueActionEvent, Rule> = {
  send: { from: ['SIGNED', 'SENT'], to: 'SENT', refusal: 'CONFLICT' },
  acknowledge: { from: ['SENT'], to: 'ACKED', refusal: 'CONFLICT' },
  refuse: { from: ['SENT'], to: 'REFUSED', refusal: 'CONFLICT' },
};

/**
 * The status after `event`, or a refusal.
 * @throws ServiceError CONFLICT, with `details.status` and `details.event`.
 */
export function decideVenueAction(status: VenueActionStatus, event: VenueActionEvent): VenueActionStatus {
  return decideRule('venue action', RULES, status, event).to;
}

/**
 * The statuses `event` applies to and the one it leads to (`ruleTransition`): every action write
 * is one without a row lock, as the omnibus worker claims an action's owner in memory, not its row.
 */
export function venueActionTransition(event: VenueActionEvent): { from: readonly VenueActionStatus[]; to: VenueActionStatus } {
  return ruleTransition(RULES, event);
}

export function isTerminal(status: VenueActionStatus): boolean {
  return isTerminalIn(RULES, status);
}
