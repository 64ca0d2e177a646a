/**
 * Shapes the RFQ domain decides on. Amounts are `bigint` smallest units of the named token;
 * decimal strings never reach this module (they are parsed at the edge by `domain/money`).
 */

/**
 * Instants. Plain aliases, not brands: the spec mixes milliseconds and seconds, so the unit is
 * spelled in every name (`...At` is millis, `...Deadline`/`...Secs` is seconds) and the alias
 * documents it, without forcing casts on every value read from the store or a request.
 */
export type UnixMillis = number;
export type UnixSeconds = number;

export type Side = 'BUY' | 'SELL';

/** `ALL`: one maker fills the whole size (the spec's RFQ); `SWEEP`: several makers may fill it (sweep-selection.ts). */
export type RfqFill = 'ALL' | 'SWEEP';

/** Spec, "States and transitions". Terminal: SETTLED, FAILED, CANCELLED. */
export type RfqStatus = 'PENDING' | 'QUOTED' | 'SETTLED' | 'FAILED' | 'CANCELLED';
export const RFQ_STATUSES = ['PENDING', 'QUOTED', 'SETTLED', 'FAILED', 'CANCELLED'] as const satisfies readonly RfqStatus[];

export type QuoteStatus = 'SUBMITTED' | 'SELECTED' | 'NOT_SELECTED' | 'EXPIRED' | 'SETTLED' | 'FAILED' | 'CANCELLED';
export const QUOTE_STATUSES = [
  'SUBMITTED',
  'SELECTED',
  'NOT_SELECTED',
  'EXPIRED',
  'SETTLED',
  'FAILED',
  'CANCELLED',
] as const satisfies readonly QuoteStatus[];

export type InstrumentType = 'SPOT' | 'PERP';

export interface Instrument {
  instrumentId: string;
  base: string;
  quote: string;
  baseDecimals: number;
  quoteDecimals: number;
  type: InstrumentType;
  /** Rate r means r / 100000 of the amount (DESIGN.md section 4). */
  takerFeeTenthBp: number;
  /** Smallest order value in quote-token units; null when the market sets none. */
  minQuoteNotional: bigint | null;
  enabled: boolean;
}

/** One side of a quote, from the maker's point of view. `amount` is in `token`'s smallest units. */
export interface QuoteLeg {
  token: string;
  amount: bigint;
}

export interface QuoteLegs {
  makerPays: QuoteLeg;
  makerReceives: QuoteLeg;
}

/** What the domain needs to know about an RFQ; fixed at submission. */
export interface RfqTerms {
  side: Side;
  /** The taker's full size in base units (before any SELL fee carve-out). */
  baseQty: bigint;
  /** BUY: most the taker pays, fee included. SELL: least the taker accepts. Quote-token units. */
  quoteLimit: bigint | null;
  /** The instrument's rate as at submission; later rate changes do not apply. */
  takerFeeTenthBp: number;
  autoAccept: boolean;
  auctionEndsAt: UnixMillis;
  /** Base token symbol. */
  base: string;
  /** Quote token symbol. */
  quote: string;
  /**
   * Absent means SPOT. On a PERP the venue charges the taker fee on the taker's venue account,
   * so the domain computes no fee, carves nothing out of a SELL and bounds `makerReceives` alone
   * (spec, Quote.takerTotal: "Perp: equals makerReceives.amount alone").
   */
  instrumentType?: InstrumentType;
}

export interface QuoteTerms extends QuoteLegs {
  quoteId: string;
  status: QuoteStatus;
  /** Restamped on every re-quote; orders competing quotes and anchors `acceptableForMs`. */
  receivedAt: UnixMillis;
  /** Maker's window from `receivedAt`; null means the quote stands until the auction closes. */
  acceptableForMs: number | null;
}
