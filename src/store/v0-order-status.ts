/**
 * The one writer of a `/v0` order's status: every change is a compare-and-set on the status the
 * caller decided from with `decideV0Order` (src/domain/v0/order-status.ts).
 */
import type { Selectable, Updateable } from 'kysely';
import type { V0OrderStatus } from '../domain/v0/order-status.ts';
import type { V0OrdersTable } from './schema.ts';
import { compareAndSetStatus, compareAndSetStatusIfStill, type StatusChange } from './status-change.ts';
import type { Reader, Tx } from './transaction.ts';

/** Columns a transition sets beside the status (the venue's message, its order id). */
export type V0OrderOutcomeFields = Omit<Updateable<V0OrdersTable>, 'id' | 'status' | 'updated_at'>;

export type V0OrderStatusChange = StatusChange<V0OrderStatus, V0OrderOutcomeFields>;

/** Writes one order's transition under the order's row lock; returns the row as written. */
export async function writeV0OrderStatus(tx: Tx, change: V0OrderStatusChange, now: number): Promise<Selectable<V0OrdersTable>> {
  return compareAndSetStatus(tx, { table: 'v0_orders', entity: 'order' }, change, now);
}

/**
 * Writes one order's transition without its row lock, if it is still in `from` (the venue's
 * acknowledgement may arrive after a fill finished the order); returns whether it was written.
 */
export async function writeV0OrderStatusIfStill(db: Reader, change: V0OrderStatusChange, now: number): Promise<boolean> {
  return (await compareAndSetStatusIfStill(db, 'v0_orders', change, now)) !== undefined;
}
