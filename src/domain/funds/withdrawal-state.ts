/**
 * The withdrawal state machine (spec, "Withdrawal"; the transitions are ours, docs/decisions/0028-deposits-and-withdrawals.md).
 * The only code that decides a withdrawal's next status and what happens to its lock:
 *
 *   PENDING --approve--> APPROVED --sign--> PROCESSING --confirm--> COMPLETED (lock consumed: debit)
 *   PENDING --reject---> FAILED (release)   PROCESSING --revert---> FAILED (release)
 *                                            PROCESSING --lose----> UNRESOLVED (stays locked)
 *   UNRESOLVED --resolveCompleted--> COMPLETED (debit) | --resolveFailed--> FAILED (release)
 *
 * PROCESSING starts when the signed transaction is persisted, before it is sent: from then on it
 * may be on-chain, so nothing may release the lock except a definite outcome.
 */
import type { ErrorCode } from '../error-codes.ts';
import type { Frame } from '../frames.ts';
import { decideRule } from '../state-machine.ts';

export const WITHDRAWAL_STATUSES = ['PENDING', 'APPROVED', 'PROCESSING', 'COMPLETED', 'FAILED', 'UNRESOLVED'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

export type WithdrawalEvent =
  /** Operator approves a requested withdrawal. */
  | 'approve'
  /** Operator rejects a requested withdrawal. */
  | 'reject'
  /** The custody transaction was signed and persisted (it may be broadcast from now on). */
  | 'sign'
  /** The transaction succeeded at the confirmation depth. */
  | 'confirm'
  /** The transaction reverted at the confirmation depth. */
  | 'revert'
  /** The transaction cannot be found or confirmed within the broadcaster's bounds. */
  | 'lose'
  /** Operator settles an UNRESOLVED one as sent. */
  | 'resolveCompleted'
  /** Operator settles an UNRESOLVED one as not sent. */
  | 'resolveFailed';

export const WITHDRAWAL_EVENTS = ['approve', 'reject', 'sign', 'confirm', 'revert', 'lose', 'resolveCompleted', 'resolveFailed'] as const satisfies readonly WithdrawalEvent[];

/** What the transition does to the withdrawal's lock. */
export type LockEffect = 'keep' | 'release' | 'consume';

interface Rule { from: WithdrawalStatus; to: WithdrawalStatus; lock: LockEffect; refusal: ErrorCode }

const RULES: Record<WithdrawalEvent, Rule> = {
  approve: { from: 'PENDING', to: 'APPROVED', lock: 'keep', refusal: 'WITHDRAWAL_NOT_PENDING' },
  reject: { from: 'PENDING', to: 'FAILED', lock: 'release', refusal: 'WITHDRAWAL_NOT_PENDING' },
  sign: { from: 'APPROVED', to: 'PROCESSING', lock: 'keep', refusal: 'CONFLICT' },
  confirm: { from: 'PROCESSING', to: 'COMPLETED', lock: 'consume', refusal: 'CONFLICT' },
  revert: { from: 'PROCESSING', to: 'FAILED', lock: 'release', refusal: 'CONFLICT' },
  lose: { from: 'PROCESSING', to: 'UNRESOLVED', lock: 'keep', refusal: 'CONFLICT' },
  resolveCompleted: { from: 'UNRESOLVED', to: 'COMPLETED', lock: 'consume', refusal: 'WITHDRAWAL_NOT_UNRESOLVED' },
  resolveFailed: { from: 'UNRESOLVED', to: 'FAILED', lock: 'release', refusal: 'WITHDRAWAL_NOT_UNRESOLVED' },
};

export interface WithdrawalDecision {
  status: WithdrawalStatus;
  lock: LockEffect;
  /** The account's balances when the lock ends (released or consumed); nothing while it is kept. */
  frames: Frame[];
}

/**
 * The status after `event`, the lock effect and the frames it pushes, or a refusal.
 * @throws ServiceError WITHDRAWAL_NOT_PENDING (operator approve/reject), WITHDRAWAL_NOT_UNRESOLVED
 *   (operator resolve) or CONFLICT (broadcaster events out of order: a race or a bug), with
 *   `details.status` and `details.event`.
 */
export function decideWithdrawal(withdrawal: { status: WithdrawalStatus; accountId: string }, event: WithdrawalEvent): WithdrawalDecision {
  const rule = decideRule('withdrawal', RULES, withdrawal.status, event);
  return { status: rule.to, lock: rule.lock, frames: rule.lock === 'keep' ? [] : [{ kind: 'balances', accountId: withdrawal.accountId }] };
}

/** The status and lock effect after `event`, or a refusal (as `decideWithdrawal`), for callers that push nothing. */
export function transitionWithdrawal(status: WithdrawalStatus, event: WithdrawalEvent): { status: WithdrawalStatus; lock: LockEffect } {
  const rule = decideRule('withdrawal', RULES, status, event);
  return { status: rule.to, lock: rule.lock };
}

/** A requested withdrawal: PENDING with its amount locked, so the account's balances are pushed. */
export function requestWithdrawalDecision(accountId: string): { status: 'PENDING'; lock: 'take'; frames: Frame[] } {
  return { status: 'PENDING', lock: 'take', frames: [{ kind: 'balances', accountId }] };
}

/** Statuses whose lock is live: the funds are still the withdrawal's. */
export function holdsLock(status: WithdrawalStatus): boolean {
  return status === 'PENDING' || status === 'APPROVED' || status === 'PROCESSING' || status === 'UNRESOLVED';
}
