/**
 * Shapes of the venue orders the service checks and forwards (spec, "Perp taker order shape and
 * signing rules"; DESIGN.md 9.2). The service never signs: it checks what the taker and the
 * maker signed and sends it unchanged.
 */
import type { Address, Hex } from 'viem';

export type VenueNetwork = 'mainnet' | 'testnet';
export const VENUE_NETWORKS = ['mainnet', 'testnet'] as const satisfies readonly VenueNetwork[];

export interface VenueSignature {
  r: `0x${string}`;
  s: `0x${string}`;
  v: 27 | 28;
}

/**
 * A pre-signed venue action as a client sends it. `action` stays `unknown` until checked: its
 * key order is part of what was signed, so it is never rebuilt, only inspected.
 */
export interface SignedVenueAction {
  action: unknown;
  nonce: number;
  signature: VenueSignature;
}

export type VenueTif = 'Ioc' | 'Alo' | 'Gtc';

/** One limit order of an `order` action, keys in the venue's signed order a, b, p, s, r, t, c. */
export interface VenueLimitOrder {
  a: number;
  b: boolean;
  p: string;
  s: string;
  r: boolean;
  t: { limit: { tif: VenueTif } };
  c?: Hex;
}

export interface VenueBuilder {
  b: Address;
  f: number;
}

/** The parsed `order` action: exactly one order, grouping `na`, `builder` only with a builder fee. */
export interface VenueOrderAction {
  type: 'order';
  orders: [VenueLimitOrder];
  grouping: 'na';
  builder?: VenueBuilder;
}

/** The parsed `cancelByCloid` action the maker signs for the clean-up (DESIGN.md 9.2). */
export interface VenueCancelByCloidAction {
  type: 'cancelByCloid';
  cancels: [{ asset: number; cloid: Hex }];
}

/**
 * Stable reasons of a refused order (DESIGN.md 9.2 lists them for the maker; the taker's checks
 * use the same set plus `builder`). Key order, `vaultAddress`, `expiresAfter`, a malformed
 * signature or an unknown key are all `shape`: the field path says which.
 */
export type PerpOrderReason = 'shape' | 'asset' | 'side' | 'size' | 'price' | 'tif' | 'cloid' | 'builder' | 'signer' | 'nonce' | 'cancel';

export interface PerpOrderDefect {
  /** Dot/bracket path into the request, e.g. `perpMakerOrder.action.orders[0].p`. */
  field: string;
  reason: PerpOrderReason;
  message: string;
}

export type PerpCheck<T> = ({ ok: true } & T) | { ok: false; errors: PerpOrderDefect[] };

/** The service's builder attribution for a quote; null when the rate is 0 (no `builder` key). */
export interface BuilderTerms {
  /** Lower-case address (rule 11). */
  address: Address;
  feeTenthBp: number;
}

/**
 * The venue's current nonce rule: a nonce must lie within one day of its own clock, either way,
 * and it keeps only the 20 highest nonces per signer (one above the smallest kept is still
 * accepted). A maker's pre-signed order or cancel older than the past bound can no longer be
 * placed, so it is treated as expired before it is sent.
 */
export const VENUE_NONCE_PAST_MS = 24 * 3600 * 1000;
export const VENUE_NONCE_FUTURE_MS = 24 * 3600 * 1000;
export const VENUE_NONCES_KEPT = 20;

/** The venue's minimum order value, in USDC micro-units ($10). */
export const VENUE_MIN_ORDER_VALUE_MICRO_USDC = 10_000_000n;

/**
 * Smallest-unit scale of a perp instrument's base amounts (`baseQty`, the base leg): a perp's base
 * is a venue coin, not a token with decimals of its own, and every venue coin's size grid
 * (`szDecimals`) is at most this fine. The grid itself is checked against `szDecimals`.
 */
export const PERP_BASE_DECIMALS = 8;
