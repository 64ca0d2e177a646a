/**
 * The reads of an account's own `/v0` orders and fills, newest first, and every account's orders
 * for the operator. Keyset pages: `(created_at, id)` strictly before the cursor.
 */
import type { V0OrderStatus } from '../domain/v0/order-status.ts';
import { newestFirst, type PageCursor } from './newest-first.ts';
import type { Reader } from './transaction.ts';

export interface V0OrderFilter {
  status?: V0OrderStatus | undefined;
  orderType?: 'limit' | 'market' | undefined;
  /** `created_at` bounds, unix ms, both exclusive. */
  createdAfter?: number | undefined;
  createdBefore?: number | undefined;
  before?: PageCursor | undefined;
}

/** Up to `limit` of the account's orders matching `filter`, newest first. */
export async function v0OrdersOfAccount(db: Reader, accountId: string, filter: V0OrderFilter, limit: number) {
  let query = db.selectFrom('v0_orders').selectAll().where('account_id', '=', accountId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.orderType) query = query.where('order_type', '=', filter.orderType);
  if (filter.createdAfter !== undefined) query = query.where('created_at', '>', filter.createdAfter);
  if (filter.createdBefore !== undefined) query = query.where('created_at', '<', filter.createdBefore);
  return newestFirst(query, { at: 'created_at', id: 'id' }, filter.before, limit).execute();
}

/** Those of `ids` that are the account's orders, in no order. */
export async function v0OrdersByIds(db: Reader, accountId: string, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('v0_orders').selectAll().where('account_id', '=', accountId).where('id', 'in', [...ids]).execute();
}

/** The account's fills with their orders, newest first; only those of one order (by `dord_` id or cloid) when asked. */
export async function v0FillsOfAccount(db: Reader, accountId: string, order?: { by: 'id' | 'cloid'; value: string }) {
  let query = db
    .selectFrom('v0_fills as f')
    .innerJoin('v0_orders as o', 'o.id', 'f.order_id')
    .select(['f.tid', 'f.price', 'f.amount', 'f.fee', 'f.fee_token', 'f.fill_time', 'o.id as order_id', 'o.cloid', 'o.order_type', 'o.side', 'o.base_token', 'o.quote_token'])
    .where('f.account_id', '=', accountId);
  if (order) query = query.where(order.by === 'id' ? 'o.id' : 'o.cloid', '=', order.value);
  return query.orderBy('f.fill_time', 'desc').orderBy('f.tid', 'desc').execute();
}

/** A page of every account's orders with the owner's address, newest first (`limit` rows at most). */
export async function v0OrdersWithOwners(db: Reader, filter: { status?: V0OrderStatus | undefined; address?: string | undefined; before?: PageCursor | undefined }, limit: number) {
  let query = db.selectFrom('v0_orders').innerJoin('accounts', 'accounts.id', 'v0_orders.account_id').selectAll('v0_orders').select('accounts.address as account_address');
  if (filter.status) query = query.where('v0_orders.status', '=', filter.status);
  if (filter.address) query = query.where('accounts.address', '=', filter.address);
  return newestFirst(query, { at: 'v0_orders.created_at', id: 'v0_orders.id' }, filter.before, limit).execute();
}
