/**
 * The deposit state machine (spec, "Deposit"; transitions are ours, docs/decisions/0028-deposits-and-withdrawals.md):
 *
 *   (seen at the head)  -> PENDING
 *   (final)             -> COMPLETED (credited), from nothing, PENDING or FAILED
 *   PENDING --vanish--> FAILED (its block is final and no longer holds the transfer)
 *
 * A FAILED deposit can still complete: a transfer reorganised out of one block may be mined again
 * in a later one (same transaction hash and log index), and then the tokens did arrive.
 */
import type { Frame } from '../frames.ts';
import { decideRule, type MachineRule } from '../state-machine.ts';

export const DEPOSIT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];
export type DepositEvent = 'finalise' | 'vanish';

const RULES: Record<DepositEvent, MachineRule<DepositStatus> & { to: DepositStatus }> = {
  finalise: { from: ['PENDING', 'FAILED'], to: 'COMPLETED', refusal: 'CONFLICT' },
  vanish: { from: 'PENDING', to: 'FAILED', refusal: 'CONFLICT' },
};

/** @throws ServiceError CONFLICT when the deposit is not in a status the event applies to. */
export function transitionDeposit(status: DepositStatus, event: DepositEvent): DepositStatus {
  return decideRule('deposit', RULES, status, event).to;
}

/**
 * A final deposit, seen before (`status`) or not (null): COMPLETED and credited, with the credited
 * account's balances pushed (none when the sender is no account's: the credit goes to suspense).
 * @throws ServiceError CONFLICT when it is already COMPLETED.
 */
export function finaliseDeposit(deposit: { status: DepositStatus | null; accountId: string | null }): { status: 'COMPLETED'; frames: Frame[] } {
  if (deposit.status !== null) transitionDeposit(deposit.status, 'finalise');
  return { status: 'COMPLETED', frames: deposit.accountId === null ? [] : [{ kind: 'balances', accountId: deposit.accountId }] };
}
