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
 * Orders two quotes by how good they are for the taker: negative when `a` ranks first.
 * A total order on quotes with distinct `quoteId`s. Ignores conformity.
 */
export function compareQuotes(rfq: SelectionTerms, a: RankedQuote, b: RankedQuote): number {
  const price =
    rfq.side === 'BUY'
      ? compareBigint(takerTotal(rfq, a), takerTotal(rfq, b))
      : compareBigint(b.makerPays.amount, a.makerPays.amount);
  if (price !== 0) return price;
  if (a.receivedAt !== b.receivedAt) return a.receivedAt - b.receivedAt;
  return a.quoteId < b.quoteId ? -1 : a.quoteId > b.quoteId ? 1 : 0;
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
