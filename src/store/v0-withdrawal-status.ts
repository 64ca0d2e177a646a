/**
 * The one writer of a `/v0` withdrawal's state: every change is a compare-and-set on the state the
 * caller decided from with `decideV0Withdrawal`, or (without the row lock) on the states
 * `v0WithdrawalTransition` names (src/domain/v0/withdrawal-status.ts).
 */
import type { Selectable, Updateable } from 'kysely';
import type { V0WithdrawalState } from '../domain/v0/withdrawal-status.ts';
import type { V0WithdrawalsTable } from './schema.ts';
import { compareAndSetStatus, compareAndSetStatusIfStill, type StatusChange, type StatusChangeIfStill } from './status-change.ts';
import type { Reader, Tx } from './transaction.ts';

/** Columns a transition sets beside the state (the transfer's hash, the venue's message). */
export type V0WithdrawalFields = Omit<Updateable<V0WithdrawalsTable>, 'id' | 'state' | 'updated_at'>;

/** Writes one withdrawal's transition under its row lock; returns the row as written. */
export async function writeV0WithdrawalState(tx: Tx, change: StatusChange<V0WithdrawalState, V0WithdrawalFields>, now: number): Promise<Selectable<V0WithdrawalsTable>> {
  return compareAndSetStatus(tx, { table: 'v0_withdrawals', entity: 'withdrawal' }, change, now);
}

/** Writes one withdrawal's transition without its row lock, if it is still in (one of) `from`; returns whether it was written. */
export async function writeV0WithdrawalStateIfStill(db: Reader, change: StatusChangeIfStill<V0WithdrawalState, V0WithdrawalFields>, now: number): Promise<boolean> {
  return (await compareAndSetStatusIfStill(db, 'v0_withdrawals', change, now)) !== undefined;
}
