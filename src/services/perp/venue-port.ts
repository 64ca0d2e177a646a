/**
 * What the perp use cases read from the venue, as an interface the venue adapter
 * (`src/venue/venue-client.ts`) implements: services never import an adapter.
 */
import type { Address, Hex } from 'viem';
import type { VenueAgent } from '../../domain/perp/authorised-signer.ts';
import type { SignedVenueAction, VenueNetwork } from '../../domain/perp/types.ts';

/** One perp of the venue's `meta.universe`, at its index. */
export interface VenuePerpAsset {
  name: string;
  szDecimals: number;
  /** The venue lists delisted coins with `isDelisted: true`; they keep their index. */
  isDelisted: boolean;
}

export interface VenueMeta {
  /** The unfiltered `universe` array: an asset's index here is its `a` (spec rule 4). */
  universe: readonly VenuePerpAsset[];
}

/** A coin found by exact name in a `meta` universe, with its index `a`. */
export interface VenueCoin extends VenuePerpAsset {
  assetIndex: number;
}

export function findCoin(meta: VenueMeta, name: string): VenueCoin | null {
  const index = meta.universe.findIndex((asset) => asset.name === name);
  if (index === -1) return null;
  return { ...meta.universe[index]!, assetIndex: index };
}

/** The venue as the service's quote path sees it; every call is bounded by a timeout. */
export interface PerpVenue {
  readonly network: VenueNetwork;
  /** The service's builder address, lower case; null when none is configured (no perp quotes carry a fee then). */
  readonly builderAddress: Address | null;
  /** `meta`, possibly from a cache (`RFQ_VENUE_META_CACHE_MS`): for quote-time checks. */
  meta(): Promise<VenueMeta>;
  /** `meta` read now, never cached: for the accept's `a` (spec rule 4: "Re-read on each accept") and registration. */
  freshMeta(): Promise<VenueMeta>;
  /** The user's API wallets (short cache allowed). */
  extraAgents(user: Address): Promise<VenueAgent[]>;
  /** The user's approved maximum builder fee for `builder`, tenths of a basis point; never cached. */
  maxBuilderFee(user: Address, builder: Address, timeoutMs?: number): Promise<number>;
  /** `orderStatus` by client order id, the venue's reply as is. */
  orderStatusByCloid(user: Address, cloid: Hex, timeoutMs?: number): Promise<OrderStatusReply>;
  /** The user's fills from `startMs` on. */
  userFillsByTime(user: Address, startMs: number, timeoutMs?: number): Promise<VenueFill[]>;
  /** Sends a pre-signed action exactly as signed; never retried here. */
  sendExchange(signed: SignedVenueAction, timeoutMs?: number): Promise<ExchangeReply>;
}

/** The venue's answer to an exchange request; a refusal is `err`, not an exception. */
export type ExchangeReply = { status: 'ok'; response: { type: string; data?: unknown } } | { status: 'err'; response: string };

export type OrderStatusReply =
  | { status: 'order'; order: { order: Record<string, unknown> & { cloid?: string | null; oid: number; sz: string; origSz: string }; status: string; statusTimestamp: number } }
  | { status: 'unknownOid' };

export interface VenueFill {
  coin: string;
  px: string;
  sz: string;
  side: 'B' | 'A';
  time: number;
  oid: number;
  cloid?: string | null;
  fee: string;
  builderFee?: string;
  [key: string]: unknown;
}
