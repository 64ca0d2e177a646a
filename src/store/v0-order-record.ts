/**
 * Records a new `/v0` order and locks its funds in one statement (one round trip, atomic on its
 * own): the identity's account is looked up, the lock moves `amount` from available to locked
 * only if that much is available (the rule of `lockFunds` in ledger.ts), and the order row and
 * its lock row are inserted only when it did. Nothing is written for an unknown identity or a
 * balance that does not cover the lock.
 */
import { sql } from 'kysely';
import type { Insertable } from 'kysely';
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
  if (lock.amount <= 0n) throw new Error('lock amount must be positive');
  const result = await sql<{ account_id: string | null; moved: number }>`
    with account as (
      select id from accounts where address = ${identity}
    ), moved as (
      update balances set available = available - ${lock.amount}, locked = locked + ${lock.amount}
      where account_id = (select id from account) and token = ${lock.token} and rail = ${lock.rail} and available >= ${lock.amount}
      returning account_id
    ), placed as (
      insert into v0_orders (id, order_uuid, cloid, account_id, side, order_type, tif, base_token, quote_token, asset, amount, price, status, created_at, updated_at)
      select ${order.id}, ${order.order_uuid}::uuid, ${order.cloid}, account_id, ${order.side}, ${order.order_type}, ${order.tif}, ${order.base_token}, ${order.quote_token},
        ${order.asset}::int, ${order.amount}::numeric, ${order.price}::numeric, ${order.status}, ${order.created_at}::int8, ${order.created_at}::int8
      from moved
    ), locked as (
      insert into locks (lock_id, account_id, token, rail, amount, owner_kind, owner_id, created_at)
      select ${lock.lockId}::uuid, account_id, ${lock.token}, ${lock.rail}, ${lock.amount}::numeric, 'order', ${order.id}, ${order.created_at}::int8
      from moved
    )
    select (select id from account) as account_id, (select count(*) from moved)::int as moved
  `.execute(db);
  const row = result.rows[0]!;
  if (row.account_id === null) return { recorded: false, reason: 'noAccount' };
  if (row.moved !== 1) return { recorded: false, reason: 'insufficient' };
  return { recorded: true, accountId: row.account_id };
}
