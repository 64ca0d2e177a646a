/**
 * The checks the taker's and the maker's `order` actions share (spec rules 1-11; DESIGN.md 9.2):
 * exact key order, one order, grouping `na`, asset index, side, size, price, time in force,
 * reduce-only, cloid and builder. After the strict checks pass, the SDK's own schema
 * canonicalises the action and must give it back unchanged (same keys, same order, same
 * strings): the action the client signed is then exactly the one the venue will verify.
 */
import { OrderRequest } from '@nktkas/hyperliquid/api/exchange';
import type { Hex } from 'viem';
import { checkKeys, isPlainObject } from './signed-action.ts';
import { venueDecimalProblem } from './venue-decimals.ts';
import type { BuilderTerms, PerpOrderDefect, VenueLimitOrder, VenueOrderAction, VenueTif } from './types.ts';

export const ACTION_KEYS = ['type', 'orders', 'grouping', 'builder'] as const;
export const ORDER_KEYS = ['a', 'b', 'p', 's', 'r', 't', 'c'] as const;
const CLOID = /^0x[0-9a-f]{32}$/;

export interface OrderExpectations {
  assetIndex: number;
  /** The expected `b`: true for a buy. */
  isBuy: boolean;
  /** The size `s` to the digit. */
  size: string;
  /** Checks `p` (already a canonical decimal); returns a message when wrong. */
  priceProblem: (p: string) => string | null;
  tif: VenueTif;
  /** The taker may send a reduce-only order (rule 9); the maker's resting order never is. */
  reduceOnlyAllowed: boolean;
  cloidRequired: boolean;
  /** The builder attribution the action must carry; null: no `builder` key at all (rule 11). */
  builder: BuilderTerms | null;
}

/** The SDK's canonical form of an `order` action, or null when its schema refuses it. */
export function sdkCanonicalOrderAction(action: unknown): unknown {
  const result = OrderRequest.entries.action['~standard'].validate(action);
  if (result instanceof Promise) throw new Error('the SDK order schema is expected to validate synchronously');
  return result.issues === undefined ? result.value : null;
}

/** Checks `action` against `expected`, pushing defects under `field`; returns it typed when clean. */
export function checkOrderAction(action: Record<string, unknown>, field: string, expected: OrderExpectations, defects: PerpOrderDefect[]): VenueOrderAction | null {
  const before = defects.length;
  const hasBuilder = Object.prototype.hasOwnProperty.call(action, 'builder');
  if (hasBuilder && expected.builder === null) {
    defects.push({ field: `${field}.builder`, reason: 'builder', message: 'builder must be absent: the quote carries no builderFeeTenthBp' });
  } else if (!hasBuilder && expected.builder !== null) {
    defects.push({ field: `${field}.builder`, reason: 'builder', message: `builder { b, f: ${expected.builder.feeTenthBp} } is required` });
  }
  checkKeys(action, ACTION_KEYS, ['builder'], field, defects);
  if (action.type !== 'order') defects.push({ field: `${field}.type`, reason: 'shape', message: 'type must be "order"' });
  if (action.grouping !== 'na') defects.push({ field: `${field}.grouping`, reason: 'shape', message: 'grouping must be "na"' });
  if (hasBuilder && expected.builder !== null) checkBuilder(action.builder, `${field}.builder`, expected.builder, defects);
  const orders = action.orders;
  if (!Array.isArray(orders) || orders.length !== 1) {
    defects.push({ field: `${field}.orders`, reason: 'shape', message: 'orders must hold exactly one order' });
  } else {
    checkOrder(orders[0], `${field}.orders[0]`, expected, defects);
  }
  if (defects.length > before) return null;
  const canonical = sdkCanonicalOrderAction(action);
  if (canonical === null || JSON.stringify(canonical) !== JSON.stringify(action)) {
    defects.push({ field, reason: 'shape', message: "the action is not in the venue's canonical form" });
    return null;
  }
  return action as unknown as VenueOrderAction;
}

function checkBuilder(builder: unknown, field: string, expected: BuilderTerms, defects: PerpOrderDefect[]): void {
  if (!isPlainObject(builder)) {
    defects.push({ field, reason: 'builder', message: 'builder must be an object { b, f }' });
    return;
  }
  checkKeys(builder, ['b', 'f'], [], field, defects);
  if (builder.b !== expected.address.toLowerCase()) {
    defects.push({ field: `${field}.b`, reason: 'builder', message: "b must be the service's builder address in lower case" });
  }
  if (builder.f !== expected.feeTenthBp) {
    defects.push({ field: `${field}.f`, reason: 'builder', message: `f must be the quote's builderFeeTenthBp ${expected.feeTenthBp}` });
  }
}

function checkOrder(order: unknown, field: string, expected: OrderExpectations, defects: PerpOrderDefect[]): void {
  if (!isPlainObject(order)) {
    defects.push({ field, reason: 'shape', message: 'the order must be an object' });
    return;
  }
  checkKeys(order, ORDER_KEYS, ['c'], field, defects);
  if (order.a !== expected.assetIndex) {
    defects.push({ field: `${field}.a`, reason: 'asset', message: "a must be the coin's index in the venue's meta universe" });
  }
  if (order.b !== expected.isBuy) {
    defects.push({ field: `${field}.b`, reason: 'side', message: `b must be ${expected.isBuy}` });
  }
  const sizeProblem = venueDecimalProblem(order.s);
  if (sizeProblem !== null) {
    defects.push({ field: `${field}.s`, reason: 'size', message: `s ${sizeProblem}` });
  } else if (order.s !== expected.size) {
    defects.push({ field: `${field}.s`, reason: 'size', message: `s must be the base leg ${expected.size}` });
  }
  const priceFormat = venueDecimalProblem(order.p);
  const priceProblem = priceFormat !== null ? `p ${priceFormat}` : expected.priceProblem(order.p as string);
  if (priceProblem !== null) defects.push({ field: `${field}.p`, reason: 'price', message: priceProblem });
  if (typeof order.r !== 'boolean' || (order.r && !expected.reduceOnlyAllowed)) {
    defects.push({ field: `${field}.r`, reason: 'shape', message: expected.reduceOnlyAllowed ? 'r must be a boolean' : 'r must be false' });
  }
  const t = order.t;
  const limit = isPlainObject(t) ? t.limit : undefined;
  if (!isPlainObject(t) || Object.keys(t).join() !== 'limit' || !isPlainObject(limit) || Object.keys(limit).join() !== 'tif' || limit.tif !== expected.tif) {
    defects.push({ field: `${field}.t`, reason: 'tif', message: `t must be { limit: { tif: "${expected.tif}" } }` });
  }
  if (order.c === undefined) {
    if (expected.cloidRequired) defects.push({ field: `${field}.c`, reason: 'cloid', message: 'c is required: 16 random bytes as lower-case 0x hex' });
  } else if (typeof order.c !== 'string' || !CLOID.test(order.c)) {
    defects.push({ field: `${field}.c`, reason: 'cloid', message: 'c must be 16 bytes as lower-case 0x hex' });
  }
}

export function cloidOf(action: VenueOrderAction): Hex | null {
  return action.orders[0].c ?? null;
}

export type { VenueLimitOrder };
