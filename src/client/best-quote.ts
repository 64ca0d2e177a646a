/**
 * The taker's choice among competing quotes, by the rule the auction itself uses (DESIGN.md
 * section 4 "Conforming quote and best price"): SUBMITTED, still inside the maker's window,
 * within `quoteLimit`; BUY lowest `takerTotal`, SELL highest `makerPays.amount`; ties to the
 * earlier `receivedAt`, then the smaller `quoteId`: the domain's own order (`compareRankKeys`).
 */
import { parseAmount } from '../domain/money/index.ts';
import { compareRankKeys } from '../domain/rfq/selection.ts';
import type { Quote, Side } from './types.ts';

/** Enough places for any token: amounts are compared as exact integers, never as floats. */
const COMPARE_DECIMALS = 36;

export function compareDecimal(a: string, b: string): number {
  const x = parseAmount(a, COMPARE_DECIMALS, { field: 'amount' });
  const y = parseAmount(b, COMPARE_DECIMALS, { field: 'amount' });
  return x < y ? -1 : x > y ? 1 : 0;
}

export interface ChoiceOptions {
  /** Server-clock unix milliseconds. */
  now: number;
  quoteLimit?: string | null;
  /** A quote whose window ends sooner than this is passed over: the accept would arrive too late. */
  minRemainingMs?: number;
}

export function isAcceptable(quote: Quote, side: Side, options: ChoiceOptions): boolean {
  if (quote.status !== 'SUBMITTED') return false;
  const expiry = quote.expiryMs ?? (quote.acceptableForMs != null ? quote.receivedAt + quote.acceptableForMs : null);
  if (expiry !== null && expiry <= options.now + (options.minRemainingMs ?? 0)) return false;
  if (options.quoteLimit != null) {
    if (side === 'BUY' && compareDecimal(quote.takerTotal, options.quoteLimit) > 0) return false;
    if (side === 'SELL' && compareDecimal(quote.makerPays.amount, options.quoteLimit) < 0) return false;
  }
  return true;
}

/** Negative when `a` is the better quote for the taker. */
export function compareQuotes(a: Quote, b: Quote, side: Side): number {
  const key = (q: Quote) => ({ price: parseAmount(side === 'BUY' ? q.takerTotal : q.makerPays.amount, COMPARE_DECIMALS, { field: 'amount' }), receivedAt: q.receivedAt, quoteId: q.quoteId });
  return compareRankKeys(side, key(a), key(b));
}

export function bestQuote(quotes: Iterable<Quote>, side: Side, options: ChoiceOptions): Quote | undefined {
  let best: Quote | undefined;
  for (const quote of quotes) {
    if (!isAcceptable(quote, side, options)) continue;
    if (!best || compareQuotes(quote, best, side) < 0) best = quote;
  }
  return best;
}
