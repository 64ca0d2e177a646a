/**
 * POST /v1/rfq/requests/{id}/cancel: the taker calls off a PENDING RFQ before `auctionEndsAt`.
 * Releases any lock, expires open quotes (each maker is told), sets `failureReason`.
 */
import { inTransaction } from '../../store/outbox.ts';
import { ServiceError } from '../../domain/errors.ts';
import { assertAuctionOpen, decideRfq, quoteFates } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from './create-rfq.ts';
import { persistQuote, persistRfq, rfqState } from './persist-transition.ts';
import { ownRfq } from './rows.ts';
import { quotesOfRfq } from '../../store/rfq-rows.ts';
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
    const decision = decideRfq(rfqState(rfq, instrument), 'takerCancel');
    // Each open quote expires (its maker told), then the RFQ (its taker told, with the balances
    // its released lock changed); the lock goes first so that frame shows it.
    for (const { quote, decision: fate } of quoteFates(quotes, [])) await persistQuote(tx, deps, { quote, decision: fate, rfq, instrument, now });
    await endTakerLock(tx, rfq.id, decision.takerLock, 'takerCancel', now);
    const updated = await persistRfq(tx, deps, { rfq, decision, fields: { failure_reason: 'cancelled by the taker' }, instrument, now });
    return rfqView(updated, instrument);
  });
}
