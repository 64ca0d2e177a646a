/**
 * The deposit state machine (spec, "Deposit"; transitions are ours, docs/decisions.md):
 *
 *   (seen at the head)  -> PENDING
 *   (final)             -> COMPLETED (credited), from nothing, PENDING or FAILED
 *   PENDING --vanish--> FAILED (its block is final and no longer holds the transfer)
 *
 * A FAILED deposit can still complete: a transfer reorganised out of one block may be mined again
 * in a later one (same transaction hash and log index), and then the tokens did arrive.
 */
import { ServiceError } from '../errors.ts';

export const DEPOSIT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];
export type DepositEvent = 'finalise' | 'vanish';

/** @throws ServiceError CONFLICT when the deposit is not in a status the event applies to. */
export function transitionDeposit(status: DepositStatus, event: DepositEvent): DepositStatus {
  if (event === 'finalise' && (status === 'PENDING' || status === 'FAILED')) return 'COMPLETED';
  if (event === 'vanish' && status === 'PENDING') return 'FAILED';
  throw new ServiceError('CONFLICT', `deposit is ${status}; ${event} does not apply`, { status, event });
}
