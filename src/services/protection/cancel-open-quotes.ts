/**
 * Cancels a maker's open quotes exactly as its own cancel does (cancel-quote.ts: same
 * transition, same `quoteStatus` and `quoteUpdate` frames), one quote per transaction. A quote
 * that stopped being open meanwhile (selected, closed, already cancelled by another node's sweep)
 * is left as it is: that refusal is the point of locking, not an error.
 */
import { ServiceError } from '../../domain/errors.ts';
import type { ServiceDeps } from '../deps.ts';
import { cancelQuote } from '../rfq/cancel-quote.ts';

export async function cancelOpenQuotes(deps: ServiceDeps, quotes: Array<{ id: string; makerAccountId: string }>): Promise<number> {
  let cancelled = 0;
  for (const quote of quotes) {
    try {
      await cancelQuote(deps, quote.makerAccountId, quote.id);
      cancelled++;
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'QUOTE_NOT_OPEN') continue;
      throw error;
    }
  }
  return cancelled;
}
