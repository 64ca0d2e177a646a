/**
 * POST /v1/rfq/requests/{id}/cancel: the taker calls off a PENDING RFQ before `auctionEndsAt`.
 * Releases any lock, expires open quotes (each maker is told), sets `failureReason`.
 */
import { inTransaction } from '../../store/outbox.ts';
import { ServiceError } from '../../domain/errors.ts';
import { assertAuctionOpen, decideRfq, transitionQuote } from '../../domain/rfq/index.ts';
import { writeQuoteStatus } from '../../store/quote-status.ts';
import { writeRfqStatus } from '../../store/rfq-status.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from './create-rfq.ts';
import { emitBalances, emitQuoteStatus, emitRfqStatus } from './events.ts';
import { ownRfq, quotesOfRfq } from './rows.ts';
import { endTakerLock } from './taker-lock.ts';
import { rfqView } from './views.ts';

export async function cancelRfq(deps: ServiceDeps, accountId: string, rfqId: string) {
  const now = deps.clock.now();
  return inTransaction(deps.db, async (tx) => {
    const rfq = await ownRfq(tx, rfqId, accountId, 'update');
    if (rfq.status !== 'PENDING') throw new ServiceError('RFQ_NOT_PENDING', 'only a PENDING RFQ can be cancelled', { status: rfq.status });
    assertAuctionOpen(rfq.auction_ends_at, now);
    const instrument = await resolveInstrument(deps, rfq.instrument_id);
    const quotes = await quotesOfRfq(tx, rfq.id, 'update');
    const decision = decideRfq(rfq.status, 'takerCancel');
    const updated = await writeRfqStatus(tx, { id: rfq.id, from: rfq.status, to: decision.status, fields: { failure_reason: 'cancelled by the taker' } }, now);
    for (const quote of quotes) {
      if (quote.status !== 'SUBMITTED') continue;
      const expired = await writeQuoteStatus(tx, { id: quote.id, from: quote.status, to: transitionQuote(quote.status, 'expire') }, now);
      await emitQuoteStatus(tx, expired, updated, instrument, now);
    }
    const released = await endTakerLock(tx, rfq.id, decision.takerLock, 'takerCancel', now);
    await emitRfqStatus(tx, updated, instrument, now);
    if (released) await emitBalances(tx, deps, accountId, now);
    return rfqView(updated, instrument);
  });
}
