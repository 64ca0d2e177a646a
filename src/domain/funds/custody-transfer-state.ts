/**
 * The custody transfer state machine: every transaction custody sends (a withdrawal, a promised
 * payout, an xchange execution, an adapter approval) is one transfer. The only code that decides
 * a transfer's next status; the status is written by src/store/custody-transfer-status.ts.
 *
 *   QUEUED --sign--> SIGNED (nonce, raw transaction and hash persisted)
 *   QUEUED --expire--> EXPIRED (a call whose deadline passed while queued: never signed)
 *   SIGNED | SENT --replace--> SIGNED (a fee bump or a zero-value cancel at the same nonce)
 *   SIGNED | SENT --send--> SENT (handed to the node; a resend keeps it SENT)
 *   SENT --confirm--> CONFIRMED | --revert--> REVERTED | --cancel--> CANCELLED (the zero-value
 *        cancel was mined: nothing paid) | --lose--> UNRESOLVED (another transaction used the nonce)
 *   SIGNED | SENT | UNRESOLVED --resolveCompleted--> CONFIRMED | --resolveFailed--> REVERTED
 *        (the operator's decision on the withdrawal it pays, checked against the chain)
 *
 * Only SENT ends on-chain: the confirm phase reads the chain for transfers it has handed to the
 * node. Every other (status, event) pair is refused with CONFLICT: the broadcaster's phases race
 * each other and other nodes, so a refusal is a race the caller lost (or a bug).
 */
import { decideRule, isTerminalIn, ruleTransition, type MachineRule } from '../state-machine.ts';

export const CUSTODY_TRANSFER_STATUSES = ['QUEUED', 'SIGNED', 'SENT', 'CONFIRMED', 'REVERTED', 'CANCELLED', 'UNRESOLVED', 'EXPIRED'] as const;
export type CustodyTransferStatus = (typeof CUSTODY_TRANSFER_STATUSES)[number];

export const CUSTODY_TRANSFER_EVENTS = ['sign', 'expire', 'replace', 'send', 'confirm', 'revert', 'cancel', 'lose', 'resolveCompleted', 'resolveFailed'] as const;
export type CustodyTransferEvent = (typeof CUSTODY_TRANSFER_EVENTS)[number];

/** Signed and not known to be mined: its latest bytes may still be sent, replaced or cancelled. */
const UNMINED = ['SIGNED', 'SENT'] as const;

type Rule = MachineRule<CustodyTransferStatus> & { to: CustodyTransferStatus };

const RULES: Record<CustodyTransferEvent, Rule> = {
  sign: { from: ['QUEUED'], to: 'SIGNED', refusal: 'CONFLICT' },
  expire: { from: ['QUEUED'], to: 'EXPIRED', refusal: 'CONFLICT' },
  replace: { from: UNMINED, to: 'SIGNED', refusal: 'CONFLICT' },
  send: { from: UNMINED, to: 'SENT', refusal: 'CONFLICT' },
  confirm: { from: ['SENT'], to: 'CONFIRMED', refusal: 'CONFLICT' },
  revert: { from: ['SENT'], to: 'REVERTED', refusal: 'CONFLICT' },
  cancel: { from: ['SENT'], to: 'CANCELLED', refusal: 'CONFLICT' },
  lose: { from: ['SENT'], to: 'UNRESOLVED', refusal: 'CONFLICT' },
  resolveCompleted: { from: [...UNMINED, 'UNRESOLVED'], to: 'CONFIRMED', refusal: 'CONFLICT' },
  resolveFailed: { from: [...UNMINED, 'UNRESOLVED'], to: 'REVERTED', refusal: 'CONFLICT' },
};

/**
 * The status after `event`, or a refusal.
 * @throws ServiceError CONFLICT, with `details.status` and `details.event`.
 */
export function decideCustodyTransfer(status: CustodyTransferStatus, event: CustodyTransferEvent): CustodyTransferStatus {
  return decideRule('custody transfer', RULES, status, event).to;
}

/** The statuses `event` applies to and the one it leads to, for a write without the row lock (`ruleTransition`). */
export function custodyTransferTransition(event: CustodyTransferEvent): { from: readonly CustodyTransferStatus[]; to: CustodyTransferStatus } {
  return ruleTransition(RULES, event);
}

export function isTerminal(status: CustodyTransferStatus): boolean {
  return isTerminalIn(RULES, status);
}

/** Which transfers the operator may ask to cancel: signed and not yet known to be mined. */
export function cancellable(status: CustodyTransferStatus): boolean {
  return (UNMINED as readonly CustodyTransferStatus[]).includes(status);
}
