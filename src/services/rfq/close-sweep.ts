/**
 * The auction close of an autoAccept SWEEP RFQ, inside the close's transaction (close-auction.ts
 * holds the RFQ, its quotes and the makers' protection rows). Judged at `auctionEndsAt` itself,
 * as every close: the bound locked at submission is released, then the sweep of the conforming
 * quotes is selected with one lock per leg (accept-sweep.ts); a sweep below `minFillQty`, or
 * none, ends the RFQ FAILED (NO_CONFORMING_QUOTE) with every open quote EXPIRED.
 */
import { auctionEndEvent, decideRfq, quoteFates, selectSweep, type Instrument } from '../../domain/rfq/index.ts';
import { endLock } from '../../store/ledger.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import type { SelectionGuard } from '../protection/selection-guard.ts';
import { rankedQuote, writeSelection } from './accept-sweep.ts';
import { persistQuote, persistRfq, rfqState } from './persist-transition.ts';
import { sweepTerms, type QuoteRow, type RfqRow } from './rows.ts';

export async function closeSweep(
  tx: Tx,
  deps: ServiceDeps,
  c: { rfq: RfqRow; quotes: readonly QuoteRow[]; instrument: Instrument; guard: SelectionGuard; now: number },
): Promise<'QUOTED' | 'FAILED'> {
  const { rfq, quotes, instrument, guard, now } = c;
  const candidates = quotes.filter((q) => q.status === 'SUBMITTED' && guard.maySelect(q.maker_account_id, rfq.instrument_id));
  const selection = selectSweep(sweepTerms(rfq, instrument), candidates.map(rankedQuote), rfq.auction_ends_at);
  // The bound goes back first: each leg then locks exactly its own cost, which the bound covers pro rata.
  const bound = await endLock(tx, 'rfq', rfq.id, 'release', selection ? 'selection' : 'auctionFailed', now);
  // An autoAccept RFQ holds its submission lock until it closes; a missing one is a bug (the batch rolls back).
  if (!bound) throw new Error(`autoAccept RFQ ${rfq.id} has no live lock at close`);
  if (selection) {
    const written = await writeSelection(tx, deps, { rfq, quotes, legs: selection.legs, instrument, now, event: 'autoSelect' });
    for (const leg of written.legs) guard.count(leg, instrument);
    return 'QUOTED';
  }
  const failed = await persistRfq(tx, deps, {
    rfq,
    decision: decideRfq(rfqState(rfq, instrument), auctionEndEvent(true, false)),
    fields: { failure_code: 'NO_CONFORMING_QUOTE', failure_reason: 'no sweep of conforming quotes reached minFillQty by the auction deadline' },
    instrument,
    now,
  });
  for (const { quote, decision } of quoteFates(quotes, [])) await persistQuote(tx, deps, { quote, decision, rfq: failed, instrument, now });
  return 'FAILED';
}
