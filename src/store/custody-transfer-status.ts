/**
 * The one writer of a custody transfer's status: every change is a compare-and-set on the status
 * the caller decided from with `decideCustodyTransfer`, or (without the row lock) on the statuses
 * `custodyTransferTransition` names (src/domain/funds/custody-transfer-state.ts).
 */
import type { RawBuilder, Selectable, Updateable } from 'kysely';
import type { CustodyTransferStatus } from '../domain/funds/custody-transfer-state.ts';
import type { CustodyTransfersTable } from './schema.ts';
import { compareAndSetStatus, compareAndSetStatusIfStill, type StatusChange, type StatusChangeIfStill } from './status-change.ts';
import type { Reader, Tx } from './transaction.ts';

/**
 * Columns a transition sets beside the status (the signed bytes, the outcome); a send counts
 * itself with `ONE_MORE_SEND` (status-change.ts).
 */
export type CustodyTransferFields = Omit<Updateable<CustodyTransfersTable>, 'id' | 'status' | 'updated_at' | 'send_attempts'> & { send_attempts?: RawBuilder<number> };

export type CustodyTransferStatusChange = StatusChange<CustodyTransferStatus, CustodyTransferFields>;

/** Writes one transfer's transition under its row lock; returns the row as written. */
export async function writeCustodyTransferStatus(tx: Tx, change: CustodyTransferStatusChange, now: number): Promise<Selectable<CustodyTransfersTable>> {
  return compareAndSetStatus(tx, { table: 'custody_transfers', entity: 'custody transfer' }, change, now);
}

/**
 * Writes one transfer's transition without its row lock, if it is still in (one of) `from`: the
 * broadcaster's phases and other nodes race for it. Returns the row as written, or undefined.
 */
export async function writeCustodyTransferStatusIfStill(db: Reader, change: StatusChangeIfStill<CustodyTransferStatus, CustodyTransferFields>, now: number): Promise<Selectable<CustodyTransfersTable> | undefined> {
  return compareAndSetStatusIfStill(db, 'custody_transfers', change, now);
}
