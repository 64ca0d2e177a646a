/**
 * The cascade behind a perp winner (DESIGN.md 9.3 step 3): the other open quotes that the taker's
 * IOC at price `p` would also cross, ranked best price first, then earliest `receivedAt`. If the
 * winner's maker order cannot rest, the first of them is promoted, and so on.
 */
import { parseAmount } from '../money/decimal.ts';
import { isConforming } from './conformity.ts';
import { compareQuotes } from './selection.ts';
import type { QuoteTerms, RfqTerms, UnixMillis } from './types.ts';

function toUnits(text: string, scale: number): bigint | null {
  try {
    return parseAmount(text, scale, { field: 'p' });
  } catch {
    return null;
  }
}

/** Prices are compared at this scale: finer than any venue price (perp at most 6 decimals). */
const PRICE_SCALE = 8;

/**
 * True when a maker order priced at this quote's leg over `baseQty` is crossed by a taker IOC at
 * `takerPx`: BUY (maker sells) when the maker's price <= p, SELL (maker buys) when >= p. Exact:
 * `leg / 10^qd / (baseQty / 10^bd)` against `p`, cross-multiplied in integers.
 */
export function crossesTakerPrice(
  rfq: Pick<RfqTerms, 'side' | 'baseQty'>,
  quote: Pick<QuoteTerms, 'makerPays' | 'makerReceives'>,
  takerPx: string,
  decimals: { baseDecimals: number; quoteDecimals: number },
): boolean {
  const p = toUnits(takerPx, PRICE_SCALE);
  if (p === null || rfq.baseQty <= 0n) return false;
  const leg = rfq.side === 'BUY' ? quote.makerReceives.amount : quote.makerPays.amount;
  const makerSide = leg * 10n ** BigInt(decimals.baseDecimals) * 10n ** BigInt(PRICE_SCALE);
  const takerSide = p * rfq.baseQty * 10n ** BigInt(decimals.quoteDecimals);
  return rfq.side === 'BUY' ? makerSide <= takerSide : makerSide >= takerSide;
}

/** The cascade's quote ids, best first (`position` = index + 1). */
export function rankCascade<Q extends QuoteTerms>(
  rfq: RfqTerms,
  quotes: readonly Q[],
  winnerId: string,
  takerPx: string,
  decimals: { baseDecimals: number; quoteDecimals: number },
  now: UnixMillis,
): string[] {
  return quotes
    .filter((q) => q.quoteId !== winnerId && q.status === 'SUBMITTED' && isConforming(rfq, q, now) && crossesTakerPrice(rfq, q, takerPx, decimals))
    .sort((a, b) => compareQuotes(rfq, a, b))
    .map((q) => q.quoteId);
}
