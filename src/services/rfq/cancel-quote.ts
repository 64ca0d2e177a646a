/**
 * POST /v1/rfq/quotes/{quoteId}/cancel: a maker withdraws its open quote before selection.
 * 404 no such quote; 403 another maker's; 409 QUOTE_NOT_OPEN once selected, settled, expired or
 * cancelled. The RFQ is locked first (same order as accept), so cancel and selection serialise.
 */
import { inTransaction } from '../../store/outbox.ts';
import { ServiceError } from '../../domain/errors.ts';
import { decideQuote } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from './create-rfq.ts';
import { persistQuote } from './persist-transition.ts';
import { makerQuoteView } from './views.ts';
import { lockQuote, lockRfq, quoteOwner } from '../../store/rfq-rows.ts';

export async function cancelQuote(deps: ServiceDeps, accountId: string, quoteId: string) {
  const now = deps.clock.now();
  return inTransaction(deps.db, async (tx) => {
    const probe = await quoteOwner(tx, quoteId);
    if (!probe) throw new ServiceError('NOT_FOUND', 'no such quote');
    if (probe.maker_account_id !== accountId) throw new ServiceError('FORBIDDEN', 'this quote belongs to another maker');
    const rfq = await lockRfq(tx, probe.rfq_id);
    const quote = await lockQuote(tx, quoteId);
    const decision = decideQuote(quote, 'makerCancel');
    const instrument = await resolveInstrument(deps, rfq.instrument_id);
    const cancelled = await persistQuote(tx, deps, { quote, decision, rfq, instrument, now });
    return makerQuoteView(cancelled, rfq, instrument);
  });
}
