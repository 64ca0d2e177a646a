/**
 * The quotes' fates when an RFQ's auction ends, whoever ends it (the taker's accept, a sweep's
 * accept, the close's autoAccept selection or sweep, the close without a winner, the taker's
 * cancel): each winner `select`, every other open quote `notSelect` when something was selected
 * and `expire` when nothing was. Quotes no longer open (cancelled, already failed) keep their
 * fate, and so do a perp selection's backups. The one home of that rule; the services persist what it decides.
 */
import { decideQuote, isOpenQuote, type QuoteDecision, type QuoteEvent } from './quote-state.ts';
import type { QuoteStatus } from './types.ts';

export interface QuoteFate<Q> {
  quote: Q;
  event: Extract<QuoteEvent, 'select' | 'notSelect' | 'expire'>;
  decision: QuoteDecision;
}

/**
 * Each open quote of `quotes` with its event and decision, in the order given; `winners` the ids
 * selected (empty: the auction ended with none). A winner must be open. `kept`: open quotes that
 * stay open (a perp selection's backups, in the cascade until the winner's order is placed).
 * @throws ServiceError QUOTE_NOT_ACCEPTABLE when a winner is not open (decideQuote's refusal)
 */
export function quoteFates<Q extends { id: string; status: QuoteStatus }>(quotes: readonly Q[], winners: readonly string[], options: { kept?: readonly string[] } = {}): QuoteFate<Q>[] {
  const selected = new Set(winners);
  const kept = new Set(options.kept ?? []);
  const fates: QuoteFate<Q>[] = [];
  for (const quote of quotes) {
    const event = selected.has(quote.id) ? 'select' : !isOpenQuote(quote.status) || kept.has(quote.id) ? null : selected.size > 0 ? 'notSelect' : 'expire';
    if (event === null) continue;
    fates.push({ quote, event, decision: decideQuote(quote, event) });
  }
  return fates;
}
