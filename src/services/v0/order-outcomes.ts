/**
 * What the venue reports about a `/v0` order, each applied in one transaction: acknowledged and
 * resting, refused, finished (with the venue's total filled size), and each fill booked once per
 * venue trade id as ORDER_FILL postings. The lock is released when the order is terminal and all
 * its fills are booked.
 */
import { fillMoney } from '../../domain/v0/order-money.ts';
import { decideV0Order, finishEvent, isTerminal, type V0OrderDecision } from '../../domain/v0/order-status.ts';
import { consumeFromLock, endLock, postMovement, type Posting } from '../../store/ledger.ts';
import type { Tx } from '../../store/transaction.ts';
import { writeV0OrderStatus, writeV0OrderStatusIfStill, type V0OrderOutcomeFields } from '../../store/v0-order-status.ts';
import { feeRatesOf } from './accounts.ts';
import type { V0Deps } from './v0-deps.ts';

async function lockOrder(tx: Tx, orderId: string) {
  return tx.selectFrom('v0_orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirst();
}

export async function markOrderResting(deps: V0Deps, orderId: string, oid: number): Promise<void> {
  const now = deps.service.clock.now();
  // Unlocked: a fill may have finished the order first, and then it stays as it is.
  const decision = decideV0Order('pending', 'rest');
  await writeV0OrderStatusIfStill(deps.service.db, { id: orderId, from: 'pending', to: decision.status, fields: { oid } }, now);
}

type LockedOrder = NonNullable<Awaited<ReturnType<typeof lockOrder>>>;

/** Writes a locked order's transition and applies its lock effect. */
async function applyDecision(tx: Tx, order: LockedOrder, decision: V0OrderDecision, fields: V0OrderOutcomeFields, now: number): Promise<void> {
  await writeV0OrderStatus(tx, { id: order.id, from: order.status, to: decision.status, fields }, now);
  if (decision.lock === 'release') await endLock(tx, 'order', order.id, 'release', `order ${decision.status}`, now);
}

/** The venue refused the order: `failed` with its message, the lock released. */
export async function failOrder(deps: V0Deps, orderId: string, message: string): Promise<void> {
  const now = deps.service.clock.now();
  await deps.service.db.transaction().execute(async (tx) => {
    const order = await lockOrder(tx, orderId);
    if (!order || isTerminal(order.status)) return;
    await applyDecision(tx, order, decideV0Order(order.status, 'refuse'), { error_message: message.slice(0, 500) }, now);
  });
}

async function finishIfComplete(tx: Tx, order: LockedOrder, filled: bigint, now: number): Promise<boolean> {
  const everything = filled >= order.amount;
  if (!everything && order.venue_filled_amount === null) return false;
  if (!everything && filled < order.venue_filled_amount!) return false;
  await applyDecision(tx, order, decideV0Order(order.status, finishEvent(order.amount, filled, order.cancel_requested)), {}, now);
  return true;
}

/**
 * The venue is done with the order (an IOC answered, a cancel confirmed) having filled
 * `venueFilled` in total: it becomes terminal once that much is booked (at once if it is).
 */
export async function finishOrder(deps: V0Deps, orderId: string, venueFilled: bigint, oid: number | null): Promise<void> {
  const now = deps.service.clock.now();
  await deps.service.db.transaction().execute(async (tx) => {
    const order = await lockOrder(tx, orderId);
    if (!order || isTerminal(order.status)) return;
    await tx.updateTable('v0_orders').set({ venue_filled_amount: venueFilled, ...(oid !== null ? { oid } : {}), updated_at: now }).where('id', '=', orderId).execute();
    await finishIfComplete(tx, { ...order, venue_filled_amount: venueFilled }, order.filled_amount, now);
  });
}

/** A pending order that was cancelled before it was ever sent. */
export async function cancelUnsentOrder(deps: V0Deps, orderId: string): Promise<void> {
  await finishOrder(deps, orderId, 0n, null);
}

export interface VenueFill {
  tid: string;
  /** x 10^8. */
  price: bigint;
  /** x 10^weiDecimals of the base. */
  size: bigint;
  time: number;
  /** The venue's fee in ledger units of `venueFeeToken` (rounded up: the omnibus's cost). */
  venueFee: bigint;
  venueFeeToken: string;
}

export interface FillScales {
  baseWeiDecimals: number;
}

/** Books one venue fill of an order exactly once (unique trade id). Returns false when already booked. */
export async function bookFill(deps: V0Deps, orderId: string, fill: VenueFill, scales: FillScales): Promise<boolean> {
  const now = deps.service.clock.now();
  return deps.service.db.transaction().execute(async (tx) => {
    const order = await lockOrder(tx, orderId);
    if (!order) return false;
    const seen = await tx.selectFrom('v0_fills').select('tid').where('tid', '=', fill.tid).executeTakeFirst();
    if (seen) return false;
    const tokens = await tx.selectFrom('tokens').select(['symbol', 'decimals']).where('symbol', 'in', [order.base_token, order.quote_token]).execute();
    const decimalsOf = new Map(tokens.map((t) => [t.symbol, t.decimals]));
    const orderScales = { baseWeiDecimals: scales.baseWeiDecimals, baseLedgerDecimals: decimalsOf.get(order.base_token)!, quoteLedgerDecimals: decimalsOf.get(order.quote_token)! };
    const rates = await feeRatesOf(tx, order.account_id, deps.settings);
    const feePpm = order.tif === 'Gtc' && order.status === 'open' ? rates.makerPpm : rates.takerPpm;
    const money = fillMoney(order.side, fill.size, fill.price, { filledNotional: order.filled_notional, quoteSettled: order.quote_settled }, feePpm, orderScales);
    const given = order.side === 'buy' ? order.quote_token : order.base_token;
    const received = order.side === 'buy' ? order.base_token : order.quote_token;
    const base = { rail: 'VENUE' as const, source: 'ORDER_FILL' as const };
    const postings: Posting[] = [];
    if (money.paid > 0n) {
      postings.push({ ...base, book: 'user', accountId: order.account_id, token: given, delta: -money.paid, fromLocked: true });
      postings.push({ ...base, book: 'custody', token: given, delta: money.paid });
    }
    if (money.receivedGross > 0n) {
      postings.push({ ...base, book: 'user', accountId: order.account_id, token: received, delta: money.receivedGross - money.fee });
      if (money.fee > 0n) postings.push({ ...base, book: 'fees', token: received, delta: money.fee });
      postings.push({ ...base, book: 'custody', token: received, delta: -money.receivedGross });
    }
    if (fill.venueFee > 0n) {
      postings.push({ ...base, book: 'fees', token: fill.venueFeeToken, delta: -fill.venueFee });
      postings.push({ ...base, book: 'custody', token: fill.venueFeeToken, delta: fill.venueFee });
    }
    const movementId = deps.service.ids.uuid();
    await postMovement(tx, { movementId, kind: 'v0_fill', reference: order.id, postings, postingIds: postings.map(() => deps.service.ids.uuid()), at: now });
    await consumeFromLock(tx, 'order', order.id, money.paid, now);
    await tx
      .insertInto('v0_fills')
      .values({ tid: fill.tid, order_id: order.id, account_id: order.account_id, price: fill.price, amount: fill.size, fee: money.fee, fee_token: received, fill_time: fill.time, movement_id: movementId, created_at: now })
      .execute();
    const filled = order.filled_amount + fill.size;
    await tx
      .updateTable('v0_orders')
      .set({ filled_amount: filled, filled_notional: money.filledNotional, quote_settled: money.quoteSettled, updated_at: now })
      .where('id', '=', order.id)
      .execute();
    if (!isTerminal(order.status)) await finishIfComplete(tx, order, filled, now);
    return true;
  });
}
