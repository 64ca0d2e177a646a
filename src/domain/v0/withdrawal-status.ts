/**
 * The `/v0` withdrawal state machine (spec v0, the withdrawal `state` values; the transitions are
 * ours). The only code that decides a withdrawal's next state and what happens to its lock; the
 * state is written by src/store/v0-withdrawal-status.ts.
 *
 *   (requested) -> pending (the amount locked; at most one pending per account)
 *   pending --complete--> completed (the omnibus's transfer showed in its ledger: lock consumed)
 *   pending --fail--> failed (the venue refused the spotSend, or does not list the token: lock released)
 *
 * Every other (state, event) pair is refused with CONFLICT: a finished withdrawal does not move.
 */
import { decideRule, isTerminalIn, ruleTransition, type MachineRule } from '../state-machine.ts';

export const V0_WITHDRAWAL_STATES = ['pending', 'completed', 'failed'] as const;
export type V0WithdrawalState = (typeof V0_WITHDRAWAL_STATES)[number];

export const V0_WITHDRAWAL_EVENTS = ['complete', 'fail'] as const;
export type V0WithdrawalEvent = (typeof V0_WITHDRAWAL_EVENTS)[number];

/** What a transition does to the withdrawal's lock. */
export type V0WithdrawalLockEffect = 'consume' | 'release';

type Rule = MachineRule<V0WithdrawalState> & { to: V0WithdrawalState; lock: V0WithdrawalLockEffect };

const RULES: Record<V0WithdrawalEvent, Rule> = {
  complete: { from: 'pending', to: 'completed', lock: 'consume', refusal: 'CONFLICT' },
  fail: { from: 'pending', to: 'failed', lock: 'release', refusal: 'CONFLICT' },
};

/**
 * The state after `event` and its lock effect, or a refusal.
 * @throws ServiceError CONFLICT, with `details.status` and `details.event`.
 */
export function decideV0Withdrawal(state: V0WithdrawalState, event: V0WithdrawalEvent): { state: V0WithdrawalState; lock: V0WithdrawalLockEffect } {
  const rule = decideRule('withdrawal', RULES, state, event);
  return { state: rule.to, lock: rule.lock };
}

/** The states `event` applies to, the one it leads to and its lock effect, for a write without the row lock (`ruleTransition`). */
export function v0WithdrawalTransition(event: V0WithdrawalEvent): { from: readonly V0WithdrawalState[]; to: V0WithdrawalState; lock: V0WithdrawalLockEffect } {
  return { ...ruleTransition(RULES, event), lock: RULES[event].lock };
}

export function isTerminal(state: V0WithdrawalState): boolean {
  return isTerminalIn(RULES, state);
}
