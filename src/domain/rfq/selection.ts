/**
 * Best price among conforming quotes (DESIGN.md section 4, "Conforming quote and best price").
 * BUY: lowest `takerTotal`; SELL: highest `makerPays.amount`. Ties go to the earlier
 * `receivedAt` (spec), then to the lexicographically smaller `quoteId` so that the outcome never
 * depends on the order the store returned the quotes in.
 */
import { isConforming } from './conformity.ts';
import { takerTotal } from './fees.ts';
import type { QuoteTerms, RfqTerms, UnixMillis } from './types.ts';

type SelectionTerms = Pick<RfqTerms, 'side' | 'baseQty' | 'quoteLimit' | 'takerFeeTenthBp' | 'instrumentType'>;
type RankedQuote = Pick<QuoteTerms, 'quoteId' | 'makerPays' | 'makerReceives' | 'receivedAt'>;

function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A quote reduced to what ranks it: `price` is what the taker compares (BUY: `takerTotal`, the
 * lower the better; SELL: `makerPays.amount`, the higher the better), in one token's smallest
 * units.
 */
export interface RankKey {
  price: bigint;
  receivedAt: UnixMillis;
  quoteId: string;
}

/**
 * The selection order itself: better price, then earlier `receivedAt`, then smaller `quoteId`.
 * Negative when `a` ranks first. Shared by the auction and the client's choice among quotes.
 */
export function compareRankKeys(side: RfqTerms['side'], a: RankKey, b: RankKey): number {
  const price = side === 'BUY' ? compareBigint(a.price, b.price) : compareBigint(b.price, a.price);
  if (price !== 0) return price;
  if (a.receivedAt !== b.receivedAt) return a.receivedAt - b.receivedAt;
  return a.quoteId < b.quoteId ? -1 : a.quoteId > b.quoteId ? 1 : 0;
}

/**
 * Orders two quotes by how good they are for the taker: negative when `a` ranks first.
 * A total order on quotes with distinct `quoteId`s. Ignores conformity.
 */
export function compareQuotes(rfq: SelectionTerms, a: RankedQuote, b: RankedQuote): number {
  const price = (q: RankedQuote): bigint => (rfq.side === 'BUY' ? takerTotal(rfq, q) : q.makerPays.amount);
  return compareRankKeys(rfq.side, { price: price(a), receivedAt: a.receivedAt, quoteId: a.quoteId }, { price: price(b), receivedAt: b.receivedAt, quoteId: b.quoteId });
}

/**
 * The best conforming quote at `now`, or null when none conforms. The auction close should pass
 * `now = auctionEndsAt` (the instant the selection belongs to), not the worker's clock, so that
 * a late-running worker does not let maker windows lapse that were open at the close.
 */
export function selectBest<Q extends QuoteTerms>(rfq: SelectionTerms, quotes: readonly Q[], now: UnixMillis): Q | null {
  let best: Q | null = null;
  for (const quote of quotes) {
    if (!isConforming(rfq, quote, now)) continue;
    if (best === null || compareQuotes(rfq, quote, best) < 0) best = quote;
  }
  return best;
}
