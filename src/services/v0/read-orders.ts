/**
 * Reads of the caller's own `/v0` orders and fills, newest first, paged by opaque cursors.
 * Amounts x 10^weiDecimals of the base, prices x 10^8, exact (the `...Float` fields are display).
 */
import { ServiceError } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money/index.ts';
import { PRICE_DECIMALS, validationError } from '../../domain/v0/venue-grid.ts';
import type { Selectable } from 'kysely';
import type { V0OrdersTable } from '../../store/schema.ts';
import { allTokens } from '../../store/reference-writes.ts';
import type { Reader } from '../../store/transaction.ts';
import { v0FillsOfAccount, v0OrdersByIds, v0OrdersOfAccount } from '../../store/v0-order-reads.ts';
import { decodeCursor, encodeCursor } from '../paging.ts';
import { requireAccount } from './accounts.ts';
import { venueMeta } from './discovery.ts';
import type { V0Deps } from './v0-deps.ts';

export const ORDER_STATUSES = ['pending', 'open', 'filled', 'partially_filled', 'cancelled', 'expired', 'failed'] as const;
export const CLEARING_VENUE = 'hyperliquid';

type OrderRow = Selectable<V0OrdersTable>;

async function weiDecimalsOf(deps: V0Deps): Promise<Map<string, number>> {
  const meta = await venueMeta(deps.venue);
  return new Map(meta.tokens.map((t) => [t.name, t.weiDecimals]));
}

function limitOf(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100) throw validationError('limit', 'must be an integer from 1 to 100');
  return value;
}

function millisOf(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw validationError(field, 'must be a unix time in milliseconds');
  return value;
}

function cursorOf(value: unknown): { at: number; id: string } | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw validationError('cursor', 'must be a cursor string');
  try {
    return decodeCursor(value, 'cursor');
  } catch {
    throw validationError('cursor', 'is not a cursor this service issued');
  }
}

function statusFilter(value: unknown): (typeof ORDER_STATUSES)[number] | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(ORDER_STATUSES as readonly string[]).includes(value)) throw validationError('status', `must be one of ${ORDER_STATUSES.join(', ')}`);
  return value as (typeof ORDER_STATUSES)[number];
}

function summary(row: OrderRow) {
  return {
    orderId: row.id,
    clientOrderId: row.cloid,
    side: row.side,
    orderType: row.order_type,
    baseToken: row.base_token,
    status: row.status,
    createdAt: row.created_at,
  };
}

function averagePrice(row: OrderRow): bigint | null {
  return row.filled_amount > 0n ? row.filled_notional / row.filled_amount : null;
}

export function orderDetail(row: OrderRow, weiDecimals: number) {
  const average = averagePrice(row);
  const showsAverage = row.status === 'filled' || row.status === 'partially_filled' || (average !== null && row.status === 'cancelled');
  return {
    orderId: row.id,
    clientOrderId: row.cloid,
    side: row.side,
    orderType: row.order_type,
    baseToken: row.base_token,
    quoteToken: row.quote_token,
    amount: row.amount.toString(),
    amountFloat: formatAmount(row.amount, weiDecimals),
    filledAmount: row.filled_amount.toString(),
    remainingAmount: (row.amount - row.filled_amount).toString(),
    price: row.price.toString(),
    priceFloat: formatAmount(row.price, PRICE_DECIMALS),
    ...(showsAverage && average !== null ? { averageFillPrice: average.toString(), filledPrice: average.toString() } : {}),
    status: row.status,
    // An IOC order expires the moment it is placed; a resting GTC order never does (0).
    expiry: row.tif === 'Ioc' ? Math.floor(row.created_at / 1000) : 0,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    clearingVenue: CLEARING_VENUE,
    ...(row.error_message ? { errorMessage: row.error_message } : {}),
  };
}

export async function listDelegatedOrders(deps: V0Deps, identity: string, input: Record<string, unknown>) {
  const status = statusFilter(input.status);
  const orderType = input.orderType === undefined ? undefined : input.orderType === 'limit' || input.orderType === 'market' ? input.orderType : (() => { throw validationError('orderType', 'must be limit or market'); })();
  const createdAfter = millisOf(input.createdAfter, 'createdAfter');
  const createdBefore = millisOf(input.createdBefore, 'createdBefore');
  const limit = limitOf(input.limit, 50);
  const cursor = cursorOf(input.cursor);
  const db = deps.service.db;
  const accountId = await requireAccount(db, identity);
  const rows = await v0OrdersOfAccount(db, accountId, { status, orderType, createdAfter, createdBefore, before: cursor }, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    orders: page.map(summary),
    pagination: rows.length > limit && last ? { nextCursor: encodeCursor({ at: last.created_at, id: last.id }) } : {},
  };
}

async function ownOrders(db: Reader, accountId: string, ids: string[]): Promise<OrderRow[]> {
  return v0OrdersByIds(db, accountId, ids);
}

export async function getDelegatedOrder(deps: V0Deps, identity: string, orderId: unknown) {
  if (typeof orderId !== 'string' || !/^dord_[0-9a-f-]{36}$/.test(orderId)) throw validationError('orderId', 'must be a dord_ order id');
  const accountId = await requireAccount(deps.service.db, identity);
  const [row] = await ownOrders(deps.service.db, accountId, [orderId]);
  if (!row) throw new ServiceError('NOT_FOUND', 'no such order');
  const wei = await weiDecimalsOf(deps);
  return { order: orderDetail(row, wei.get(row.base_token) ?? 0) };
}

export async function batchGetDelegatedOrders(deps: V0Deps, identity: string, orderIds: unknown) {
  if (!Array.isArray(orderIds) || orderIds.length < 1 || orderIds.length > 100 || orderIds.some((id) => typeof id !== 'string' || id.length > 100)) {
    throw validationError('orderIds', 'must be an array of 1 to 100 order id strings');
  }
  const accountId = await requireAccount(deps.service.db, identity);
  const wanted = [...new Set(orderIds as string[])];
  const rows = await ownOrders(deps.service.db, accountId, wanted.filter((id) => /^dord_[0-9a-f-]{36}$/.test(id)));
  const found = new Map(rows.map((r) => [r.id, r]));
  const wei = await weiDecimalsOf(deps);
  return {
    orders: wanted.filter((id) => found.has(id)).map((id) => orderDetail(found.get(id)!, wei.get(found.get(id)!.base_token) ?? 0)),
    notFound: wanted.filter((id) => !found.has(id)),
  };
}

/** The wrapped layout's order list (decommissioned in `flat`). */
export async function getUserOrders(deps: V0Deps, identity: string, statusInput: unknown) {
  const status = statusFilter(statusInput);
  const db = deps.service.db;
  const accountId = await requireAccount(db, identity);
  const rows = await v0OrdersOfAccount(db, accountId, { status }, 100);
  const wei = await weiDecimalsOf(deps);
  return {
    orders: rows.map((row) => ({
      orderId: row.order_uuid,
      side: row.side,
      orderType: row.order_type,
      baseToken: row.base_token,
      quoteToken: row.quote_token,
      amount: row.amount.toString(),
      amountFloat: formatAmount(row.amount, wei.get(row.base_token) ?? 0),
      ...(row.order_type === 'limit' ? { price: row.price.toString(), priceFloat: formatAmount(row.price, PRICE_DECIMALS) } : {}),
      status: row.status,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    })),
  };
}

/** `listFills`: one row per venue fill of a limit order (with its fee); one aggregate row per market order (fee null). */
export async function listFills(deps: V0Deps, identity: string, input: Record<string, unknown>) {
  const limit = limitOf(input.limit, 50);
  const cursor = cursorOf(input.cursor);
  const orderIdInput = input.orderId;
  if (orderIdInput !== undefined && (typeof orderIdInput !== 'string' || !(/^dord_[0-9a-f-]{36}$/.test(orderIdInput) || /^0x[0-9a-fA-F]{32}$/.test(orderIdInput)))) {
    throw validationError('orderId', 'must be a dord_ order id or a client order id');
  }
  const db = deps.service.db;
  const accountId = await requireAccount(db, identity);
  const rows = await v0FillsOfAccount(db, accountId, typeof orderIdInput === 'string' ? { by: orderIdInput.startsWith('dord_') ? 'id' : 'cloid', value: orderIdInput.toLowerCase() } : undefined);
  const decimals = new Map((await allTokens(db)).map((t) => [t.symbol, t.decimals]));
  type Row = { key: string; at: number; fill: Record<string, unknown> };
  const out: Row[] = [];
  const aggregates = new Map<string, { amount: bigint; notional: bigint; row: (typeof rows)[number]; at: number }>();
  for (const r of rows) {
    if (r.order_type === 'market') {
      const agg = aggregates.get(r.order_id) ?? { amount: 0n, notional: 0n, row: r, at: r.fill_time };
      agg.amount += r.amount;
      agg.notional += r.amount * r.price;
      agg.at = Math.max(agg.at, r.fill_time);
      aggregates.set(r.order_id, agg);
      continue;
    }
    out.push({
      key: r.tid,
      at: r.fill_time,
      fill: { orderId: r.order_id, clientOrderId: r.cloid, orderType: r.order_type, side: r.side, baseToken: r.base_token, quoteToken: r.quote_token, price: r.price.toString(), amount: r.amount.toString(), fee: formatAmount(r.fee, decimals.get(r.fee_token) ?? 0), fillTime: r.fill_time },
    });
  }
  for (const [orderId, agg] of aggregates) {
    const r = agg.row;
    out.push({
      key: `agg_${orderId}`,
      at: agg.at,
      fill: { orderId, clientOrderId: r.cloid, orderType: r.order_type, side: r.side, baseToken: r.base_token, quoteToken: r.quote_token, price: (agg.notional / agg.amount).toString(), amount: agg.amount.toString(), fee: null, fillTime: agg.at },
    });
  }
  out.sort((a, b) => (b.at - a.at) || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
  const after = cursor ? out.filter((r) => r.at < cursor.at || (r.at === cursor.at && r.key < cursor.id)) : out;
  const page = after.slice(0, limit);
  const last = page[page.length - 1];
  return {
    fills: page.map((r) => r.fill),
    pagination: after.length > limit && last ? { nextCursor: encodeCursor({ at: last.at, id: last.key }) } : {},
  };
}
