/**
 * Records a new `/v0` order and locks its funds in one statement (one round trip, atomic on its
 * own): the identity's account is looked up, the lock is taken through the one lock rule
 * (`rfq_lock_funds`, ledger.ts: `amount` moves from available to locked only if that much is
 * available, and the lock row is written only when it did), and the order row is inserted only
 * when the lock was taken. Nothing is written for an unknown identity or a balance that does not
 * cover the lock.
 */
import { sql } from 'kysely';
import type { Insertable } from 'kysely';
import { assertLockAmount } from './ledger.ts';
import type { V0OrdersTable } from './schema.ts';
import type { Reader } from './transaction.ts';

export type NewV0Order = Omit<Insertable<V0OrdersTable>, 'account_id'> & { id: string; order_uuid: string; created_at: number };

export interface OrderLock {
  lockId: string;
  token: string;
  rail: 'VENUE';
  amount: bigint;
}

export type RecordOutcome = { recorded: true; accountId: string } | { recorded: false; reason: 'noAccount' | 'insufficient' };

export async function recordV0OrderLocked(db: Reader, identity: string, order: NewV0Order, lock: OrderLock): Promise<RecordOutcome> {
  assertLockAmount(lock);
  const result = await sql<{ account_id: string | null; taken: boolean }>`
    with account as (
      select id from accounts where address = ${identity}
    ), taken as (
      select id as account_id, rfq_lock_funds(${lock.lockId}::uuid, id, ${lock.token}, ${lock.rail}, ${lock.amount.toString()}::numeric, 'order', ${order.id}, ${order.created_at}::int8) as taken
      from account
    ), placed as (
      insert into v0_orders (id, order_uuid, cloid, account_id, side, order_type, tif, base_token, quote_token, asset, amount, price, status, created_at, updated_at)
      select ${order.id}, ${order.order_uuid}::uuid, ${order.cloid}, account_id, ${order.side}, ${order.order_type}, ${order.tif}, ${order.base_token}, ${order.quote_token},
        ${order.asset}::int, ${order.amount}::numeric, ${order.price}::numeric, ${order.status}, ${order.created_at}::int8, ${order.created_at}::int8
      from taken where taken
    )
    select (select id from account) as account_id, coalesce((select taken from taken), false) as taken
  `.execute(db);
  const row = result.rows[0]!;
  if (row.account_id === null) return { recorded: false, reason: 'noAccount' };
  if (row.taken !== true) return { recorded: false, reason: 'insufficient' };
  return { recorded: true, accountId: row.account_id };
}
