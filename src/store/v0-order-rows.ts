/**
 * A `/v0` order's rows as its use cases lock and write them beside its status (which only
 * src/store/v0-order-status.ts writes): the order under its row lock, its progress and venue
 * answer, a cancel request, and its fills, each venue trade id booked once.
 */
import { sql, type Insertable } from 'kysely';
import type { V0FillsTable } from './schema.ts';
import type { Tx } from './transaction.ts';
import type { V0OrderOutcomeFields } from './v0-order-status.ts';

/** The order, locked until the transaction ends; undefined when there is none. */
export async function lockV0Order(tx: Tx, orderId: string) {
  return tx.selectFrom('v0_orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirst();
}

/**
 * The order under its row lock, with what booking a fill needs beside it in the same statement:
 * the account's own fee rates (null: the defaults) and the trade ids already booked for it.
 */
export async function lockV0OrderForFills(tx: Tx, orderId: string) {
  return tx
    .selectFrom('v0_orders')
    .leftJoin('v0_fee_rates', 'v0_fee_rates.account_id', 'v0_orders.account_id')
    .selectAll('v0_orders')
    .select(['v0_fee_rates.taker_ppm', 'v0_fee_rates.maker_ppm'])
    .select((eb) => eb.selectFrom('v0_fills').select(sql<string | null>`string_agg(tid, ',')`.as('tids')).whereRef('v0_fills.order_id', '=', 'v0_orders.id').as('booked_tids'))
    .where('v0_orders.id', '=', orderId)
    .forUpdate('v0_orders')
    .executeTakeFirst();
}

/** The account's order named by its UUID (`order_uuid`) or client id (`cloid`), locked; what a cancel decides on. */
export async function lockV0OrderToCancel(tx: Tx, accountId: string, by: 'order_uuid' | 'cloid', value: string) {
  return tx.selectFrom('v0_orders').select(['id', 'status', 'tif', 'cancel_requested']).where(by, '=', value).where('account_id', '=', accountId).forUpdate().executeTakeFirst();
}

export async function markV0OrderCancelRequested(tx: Tx, orderId: string, now: number): Promise<void> {
  await tx.updateTable('v0_orders').set({ cancel_requested: true, updated_at: now }).where('id', '=', orderId).execute();
}

/** Writes columns beside the status (progress, the venue's total and order id); the status stays. */
export async function writeV0OrderFields(tx: Tx, orderId: string, fields: V0OrderOutcomeFields, now: number): Promise<void> {
  await tx.updateTable('v0_orders').set({ ...fields, updated_at: now }).where('id', '=', orderId).execute();
}

/** One venue fill of an order (its trade id is the key: a second insert of it fails). */
export async function insertV0Fill(tx: Tx, fill: Insertable<V0FillsTable>): Promise<void> {
  await tx.insertInto('v0_fills').values(fill).execute();
}
