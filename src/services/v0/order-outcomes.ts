/**
 * What the venue reports about a `/v0` order, each applied in one transaction: acknowledged and
 * resting, refused, finished (with the venue's total filled size), and each fill booked once per
 * venue trade id as ORDER_FILL postings. The lock is released when the order is terminal and all
 * its fills are booked.
 */
import { fillMoney } from '../../domain/v0/order-money.ts';
import { decideV0Order, finishEvent, isTerminal, type V0OrderDecision } from '../../domain/v0/order-status.ts';
import { endLock, type Posting } from '../../store/ledger.ts';
import { applyBalanceDeltas, consumeAndMaybeEndLock, recordMovement, type BalanceDelta } from '../../store/ledger-batched.ts';
import { tokenDecimalsOf } from '../../store/reference-writes.ts';
import type { Tx } from '../../store/transaction.ts';
import { insertV0Fill, lockV0Order, lockV0OrderForFills, writeV0OrderFields } from '../../store/v0-order-rows.ts';
import { writeV0OrderStatus, writeV0OrderStatusIfStill, type V0OrderOutcomeFields } from '../../store/v0-order-status.ts';
import type { V0Deps } from './v0-deps.ts';

export async function markOrderResting(deps: V0Deps, orderId: string, oid: number): Promise<void> {
  const now = deps.service.clock.now();
  // Unlocked: a fill may have finished the order first, and then it stays as it is.
  const decision = decideV0Order('pending', 'rest');
  await writeV0OrderStatusIfStill(deps.service.db, { id: orderId, from: 'pending', to: decision.status, fields: { oid } }, now);
}

type LockedOrder = NonNullable<Awaited<ReturnType<typeof lockV0Order>>>;

/** Writes a locked order's transition and applies its lock effect. */
async function applyDecision(tx: Tx, order: Pick<LockedOrder, 'id' | 'status'>, decision: V0OrderDecision, fields: V0OrderOutcomeFields, now: number): Promise<void> {
  await writeV0OrderStatus(tx, { id: order.id, from: order.status, to: decision.status, fields }, now);
  if (decision.lock === 'release') await endLock(tx, 'order', order.id, 'release', `order ${decision.status}`, now);
}

/** The venue refused the order: `failed` with its message, the lock released. */
export async function failOrder(deps: V0Deps, orderId: string, message: string): Promise<void> {
  const now = deps.service.clock.now();
  await deps.service.db.transaction().execute(async (tx) => {
    const order = await lockV0Order(tx, orderId);
    if (!order || isTerminal(order.status)) return;
    await applyDecision(tx, order, decideV0Order(order.status, 'refuse'), { error_message: message.slice(0, 500) }, now);
  });
}

async function finishIfComplete(tx: Tx, order: LockedOrder, filled: bigint, now: number): Promise<boolean> {
  if (!isComplete(order.amount, filled, order.venue_filled_amount)) return false;
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
    const order = await lockV0Order(tx, orderId);
    if (!order || isTerminal(order.status)) return;
    await writeV0OrderFields(tx, orderId, { venue_filled_amount: venueFilled, ...(oid !== null ? { oid } : {}) }, now);
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

/** The venue is done with the order and filled this much of it in total (an IOC's `filled` answer). */
export interface VenueFinalAnswer {
  venueFilled: bigint;
  oid: number;
}

async function ledgerDecimals(deps: V0Deps, tx: Tx, symbols: string[]): Promise<Map<string, number>> {
  const known = (await deps.service.refdata.current()).tokens;
  if (symbols.every((symbol) => known.has(symbol))) return new Map(symbols.map((symbol) => [symbol, known.get(symbol)!.decimals]));
  const rows = await tokenDecimalsOf(tx, symbols);
  return new Map(rows.map((t) => [t.symbol, t.decimals]));
}

/** Books one venue fill of an order exactly once (unique trade id). Returns false when already booked. */
export async function bookFill(deps: V0Deps, orderId: string, fill: VenueFill, scales: FillScales): Promise<boolean> {
  return (await bookFills(deps, orderId, [fill], scales)) === 1;
}

/**
 * Books an order's venue fills, each trade id exactly once, in one transaction under the order's
 * row lock, and (with `answer`) records the venue's final total and order id in it too; the order
 * ends in the same transaction once everything the venue reported is booked. Returns how many
 * fills were booked now.
 */
export async function bookFills(deps: V0Deps, orderId: string, fills: VenueFill[], scales: FillScales, answer?: VenueFinalAnswer): Promise<number> {
  const now = deps.service.clock.now();
  return deps.service.db.transaction().execute(async (tx) => {
    const order = await lockV0OrderForFills(tx, orderId);
    if (!order) return 0;
    const booked = new Set(order.booked_tids?.split(',') ?? []);
    const fresh: VenueFill[] = [];
    for (const fill of fills) {
      if (booked.has(fill.tid)) continue;
      booked.add(fill.tid);
      fresh.push(fill);
    }
    // A finished order takes no answer; a fill of one is still booked (its lock decides).
    if (isTerminal(order.status) ? fresh.length === 0 : fresh.length === 0 && answer === undefined) return 0;
    const decimalsOf = await ledgerDecimals(deps, tx, [...new Set([order.base_token, order.quote_token, ...fresh.map((f) => f.venueFeeToken)])]);
    const orderScales = { baseWeiDecimals: scales.baseWeiDecimals, baseLedgerDecimals: decimalsOf.get(order.base_token)!, quoteLedgerDecimals: decimalsOf.get(order.quote_token)! };
    const rates = order.taker_ppm === null || order.maker_ppm === null ? { takerPpm: deps.settings.defaultTakerPpm, makerPpm: deps.settings.defaultMakerPpm } : { takerPpm: order.taker_ppm, makerPpm: order.maker_ppm };
    const feePpm = order.tif === 'Gtc' && order.status === 'open' ? rates.makerPpm : rates.takerPpm;
    const given = order.side === 'buy' ? order.quote_token : order.base_token;
    const received = order.side === 'buy' ? order.base_token : order.quote_token;
    let progress = { filledAmount: order.filled_amount, filledNotional: order.filled_notional, quoteSettled: order.quote_settled };
    // Balance changes are gathered and applied last, in one statement: the account's balance rows
    // are what its other orders' transactions wait on, so they are held only at the very end.
    const deltas: BalanceDelta[] = [];
    let consumed = 0n;
    for (const fill of fresh) {
      const money = fillMoney(order.side, fill.size, fill.price, { filledNotional: progress.filledNotional, quoteSettled: progress.quoteSettled }, feePpm, orderScales);
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
      deltas.push(...(await recordMovement(tx, { movementId, kind: 'v0_fill', reference: order.id, postings, postingIds: postings.map(() => deps.service.ids.uuid()), at: now })));
      consumed += money.paid;
      await insertV0Fill(tx, { tid: fill.tid, order_id: order.id, account_id: order.account_id, price: fill.price, amount: fill.size, fee: money.fee, fee_token: received, fill_time: fill.time, movement_id: movementId, created_at: now });
      progress = { filledAmount: progress.filledAmount + fill.size, filledNotional: money.filledNotional, quoteSettled: money.quoteSettled };
    }
    // The order's progress and (once complete) its transition are one write.
    const fields = {
      filled_amount: progress.filledAmount,
      filled_notional: progress.filledNotional,
      quote_settled: progress.quoteSettled,
      ...(answer !== undefined && !isTerminal(order.status) ? { venue_filled_amount: answer.venueFilled, oid: answer.oid } : {}),
    };
    const venueFilled = answer?.venueFilled ?? order.venue_filled_amount;
    let lockEnd: { reason: string } | null = null;
    if (!isTerminal(order.status) && isComplete(order.amount, progress.filledAmount, venueFilled)) {
      const decision = decideV0Order(order.status, finishEvent(order.amount, progress.filledAmount, order.cancel_requested));
      await writeV0OrderStatus(tx, { id: order.id, from: order.status, to: decision.status, fields }, now);
      if (decision.lock === 'release') lockEnd = { reason: `order ${decision.status}` };
    } else {
      await writeV0OrderFields(tx, order.id, fields, now);
    }
    deltas.push(...(await consumeAndMaybeEndLock(tx, 'order', order.id, consumed, lockEnd, now)));
    await applyBalanceDeltas(tx, deltas);
    return fresh.length;
  });
}

/** Everything the venue filled is booked: all of the order, or the venue's final total once known. */
function isComplete(amount: bigint, filled: bigint, venueFilled: bigint | null): boolean {
  return filled >= amount || (venueFilled !== null && filled >= venueFilled);
}
