/**
 * Selection on a SWEEP RFQ (DESIGN.md section 14): several makers fill one RFQ.
 *
 * Quotes are ranked by their all-in price per unit of base, then by earlier `receivedAt`, then by
 * the smaller `quoteId` (so the outcome never depends on the order the store returned them in).
 * Whole quotes are taken while they fit; the first divisible quote that crosses the remainder is
 * cut to it (on the base grid) and ends the sweep; an all-or-none quote that does not fit is
 * skipped; the sweep stops at `baseQty`.
 * A selection below `minFillQty` selects nothing.
 *
 * Prices per unit are compared by cross-multiplication, never by division, so two quotes of
 * different sizes rank exactly. Fees are per leg and in the quote token on both sides: BUY the
 * rate on the leg's `makerReceives`, SELL the rate on the leg's `makerPays`, deducted from what the
 * taker receives; both rounded down (in the taker's favour, as every fee in the spec). A perp
 * carries no fee here: the venue charges the taker's account.
 */
import { feeFloor, mulDivDown, mulDivUp } from '../money/arithmetic.ts';
import { insideMakerWindow } from './conformity.ts';
import type { QuoteTerms, Side, UnixMillis } from './types.ts';

export interface SweepTerms {
  side: Side;
  /** The taker's full size in base units. */
  baseQty: bigint;
  /** The least the selection must fill, in base units; `baseQty` when the taker set none. */
  minFillQty: bigint;
  /** BUY: most the taker pays for all of `baseQty`, fee included. SELL: least it receives. */
  quoteLimit: bigint | null;
  takerFeeTenthBp: number;
  instrumentType?: 'SPOT' | 'PERP';
  /**
   * The step a cut base must be a multiple of, in base units: 1 for a spot token (its own
   * smallest unit); a perp passes the venue's size step.
   */
  baseStep: bigint;
}

export interface SweepQuote extends Pick<QuoteTerms, 'quoteId' | 'status' | 'makerPays' | 'makerReceives' | 'receivedAt' | 'acceptableForMs'> {
  /** False when the maker lets the quote be cut (DESIGN.md section 14: default true). */
  allOrNone: boolean;
}

/** One selected quote at its selected size. */
export interface SweepLeg<Q extends SweepQuote> {
  quote: Q;
  /** Base the leg moves: the quote's whole base, or less when cut. */
  baseQty: bigint;
  /** Quote-token amount the leg moves between maker and taker, before the fee. */
  quoteQty: bigint;
  cut: boolean;
  /** In the quote token: BUY added to what the taker pays, SELL taken from what it receives. */
  takerFee: bigint;
  /** BUY: `quoteQty + takerFee`, what the taker pays. SELL: `quoteQty - takerFee`, what it receives. */
  takerQuoteAmount: bigint;
}

export interface SweepSelection<Q extends SweepQuote> {
  legs: SweepLeg<Q>[];
  /** Sum of the legs' base. */
  filledBaseQty: bigint;
  /** Sum of the legs' `takerQuoteAmount`. */
  takerQuoteAmount: bigint;
  takerFee: bigint;
}

function isPerp(terms: Pick<SweepTerms, 'instrumentType'>): boolean {
  return terms.instrumentType === 'PERP';
}

/** The base leg of a quote: what the maker pays on a BUY, what it receives on a SELL. */
export function quoteBase(side: Side, quote: Pick<QuoteTerms, 'makerPays' | 'makerReceives'>): bigint {
  return side === 'BUY' ? quote.makerPays.amount : quote.makerReceives.amount;
}

/** The quote-token leg of a quote: what the maker receives on a BUY, what it pays on a SELL. */
export function quoteQuoteAmount(side: Side, quote: Pick<QuoteTerms, 'makerPays' | 'makerReceives'>): bigint {
  return side === 'BUY' ? quote.makerReceives.amount : quote.makerPays.amount;
}

/** The fee on one leg of a sweep, in the quote token, rounded down. */
export function sweepLegFee(terms: Pick<SweepTerms, 'takerFeeTenthBp' | 'instrumentType'>, quoteQty: bigint): bigint {
  return isPerp(terms) ? 0n : feeFloor(quoteQty, terms.takerFeeTenthBp);
}

/** What the taker pays (BUY) or receives (SELL) on a leg, in the quote token, fee applied. */
export function sweepTakerQuoteAmount(terms: Pick<SweepTerms, 'side' | 'takerFeeTenthBp' | 'instrumentType'>, quoteQty: bigint): bigint {
  const fee = sweepLegFee(terms, quoteQty);
  return terms.side === 'BUY' ? quoteQty + fee : quoteQty - fee;
}

/**
 * A SWEEP quote's own `takerTotal`, in the taker's pay token: BUY what the taker pays for its
 * base, fee included; SELL the base it takes from the taker (the fee is in the quote token,
 * deducted from what the taker receives).
 */
export function sweepQuoteTakerTotal(terms: Pick<SweepTerms, 'side' | 'takerFeeTenthBp' | 'instrumentType'>, quote: Pick<QuoteTerms, 'makerPays' | 'makerReceives'>): bigint {
  return terms.side === 'BUY' ? sweepTakerQuoteAmount(terms, quoteQuoteAmount(terms.side, quote)) : quoteBase(terms.side, quote);
}

/**
 * Whether a leg of `base` for `takerQuoteAmount` keeps the taker's bound pro rata: BUY at most
 * `quoteLimit / baseQty` per unit, SELL at least. Exact: both sides multiplied out.
 */
export function withinQuoteLimitPerUnit(terms: Pick<SweepTerms, 'side' | 'baseQty' | 'quoteLimit'>, base: bigint, takerQuoteAmount: bigint): boolean {
  if (terms.quoteLimit === null) return true;
  const leg = takerQuoteAmount * terms.baseQty;
  const bound = terms.quoteLimit * base;
  return terms.side === 'BUY' ? leg <= bound : leg >= bound;
}

/**
 * A quote's quote-token leg cut to `cutBase`, keeping its per-unit price, rounded in the
 * maker's favour: up when the maker receives it (BUY), down when the maker pays it (SELL).
 */
export function cutQuoteAmountInMakersFavour(side: Side, quote: Pick<QuoteTerms, 'makerPays' | 'makerReceives'>, cutBase: bigint): bigint {
  const base = quoteBase(side, quote);
  const amount = quoteQuoteAmount(side, quote);
  return side === 'BUY' ? mulDivUp(amount, cutBase, base) : mulDivDown(amount, cutBase, base);
}

/**
 * Whether a quote may be ranked on a sweep at `now`: still open, inside its maker window, a base
 * leg of at least one unit and at most `baseQty`, and its all-in price per unit within the bound.
 */
export function conformsToSweep(terms: SweepTerms, quote: SweepQuote, now: UnixMillis): boolean {
  if (quote.status !== 'SUBMITTED' || !insideMakerWindow(quote, now)) return false;
  const base = quoteBase(terms.side, quote);
  if (base <= 0n || base > terms.baseQty) return false;
  return withinQuoteLimitPerUnit(terms, base, sweepTakerQuoteAmount(terms, quoteQuoteAmount(terms.side, quote)));
}

function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Sweep rank order, negative when `a` ranks first: better all-in price per unit (BUY lower,
 * SELL higher), then earlier `receivedAt`, then smaller `quoteId`.
 */
export function compareSweepQuotes(terms: Pick<SweepTerms, 'side' | 'takerFeeTenthBp' | 'instrumentType'>, a: SweepQuote, b: SweepQuote): number {
  const aBase = quoteBase(terms.side, a);
  const bBase = quoteBase(terms.side, b);
  // a.total / a.base against b.total / b.base, multiplied out (both bases are positive).
  const aScaled = sweepTakerQuoteAmount(terms, quoteQuoteAmount(terms.side, a)) * bBase;
  const bScaled = sweepTakerQuoteAmount(terms, quoteQuoteAmount(terms.side, b)) * aBase;
  const price = terms.side === 'BUY' ? compareBigint(aScaled, bScaled) : compareBigint(bScaled, aScaled);
  if (price !== 0) return price;
  if (a.receivedAt !== b.receivedAt) return a.receivedAt - b.receivedAt;
  return a.quoteId < b.quoteId ? -1 : a.quoteId > b.quoteId ? 1 : 0;
}

function leg<Q extends SweepQuote>(terms: SweepTerms, quote: Q, baseQty: bigint, quoteQty: bigint, cut: boolean): SweepLeg<Q> {
  const takerFee = sweepLegFee(terms, quoteQty);
  return { quote, baseQty, quoteQty, cut, takerFee, takerQuoteAmount: terms.side === 'BUY' ? quoteQty + takerFee : quoteQty - takerFee };
}

/**
 * The sweep over `quotes` at `now`, or null when it cannot reach `minFillQty` (then nothing is
 * selected). For an accept naming quotes, pass only the named ones: they are ranked the same way.
 *
 * A cut whose rounding in the maker's favour would take the leg past the taker's per-unit bound
 * is not made (the quote is passed over like an all-or-none one that does not fit), so the
 * selection as a whole never costs more than `quoteLimit` pro rata.
 */
export function selectSweep<Q extends SweepQuote>(terms: SweepTerms, quotes: readonly Q[], now: UnixMillis): SweepSelection<Q> | null {
  if (terms.baseStep <= 0n) throw new RangeError('baseStep must be positive');
  const ranked = quotes.filter((q) => conformsToSweep(terms, q, now)).sort((a, b) => compareSweepQuotes(terms, a, b));
  const legs: SweepLeg<Q>[] = [];
  let remaining = terms.baseQty;
  for (const quote of ranked) {
    if (remaining === 0n) break;
    const base = quoteBase(terms.side, quote);
    if (base <= remaining) {
      legs.push(leg(terms, quote, base, quoteQuoteAmount(terms.side, quote), false));
      remaining -= base;
      continue;
    }
    if (quote.allOrNone) continue;
    const cutBase = remaining - (remaining % terms.baseStep);
    if (cutBase === 0n) continue;
    const cutQuote = cutQuoteAmountInMakersFavour(terms.side, quote, cutBase);
    if (cutQuote === 0n) continue;
    const cutLeg = leg(terms, quote, cutBase, cutQuote, true);
    if (!withinQuoteLimitPerUnit(terms, cutBase, cutLeg.takerQuoteAmount)) continue;
    legs.push(cutLeg);
    remaining -= cutBase;
    // One cut per sweep, and it is the last leg: what is left is under one step of the grid.
    break;
  }
  const filledBaseQty = terms.baseQty - remaining;
  if (legs.length === 0 || filledBaseQty < terms.minFillQty) return null;
  return {
    legs,
    filledBaseQty,
    takerQuoteAmount: legs.reduce((sum, l) => sum + l.takerQuoteAmount, 0n),
    takerFee: legs.reduce((sum, l) => sum + l.takerFee, 0n),
  };
}
