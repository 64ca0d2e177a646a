/**
 * A promised quote whose window closed without a delivery: once a FINAL block is stamped past its
 * `deliveryDeadline` (chain time, as permit2's deadline is judged), the RFQ ends FAILED with
 * SETTLEMENT_FAILED, the quote FAILED, the taker's lock released. Runs inside the chain
 * follower's step, after that step's deliveries, so a delivery in the deadline second always wins.
 * (expire-settlement.ts, on wall-clock time, leaves promised quotes to this path.)
 */
import { decideQuote, decideRfq } from '../../domain/rfq/index.ts';
import type { Tx } from '../../store/transaction.ts';
import { overduePromisedQuotes } from '../../store/rfq-deadlines.ts';
import { lockQuoteIn, lockRfqIn } from '../../store/rfq-rows.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from './create-rfq.ts';
import { persistQuote, persistRfq, rfqState } from './persist-transition.ts';
import { recordMakerFailure } from '../settlement/maker-failures.ts';
import { endTakerLock } from './taker-lock.ts';
import { failSweepLeg, finishSweepIfEnded } from './sweep-legs.ts';

/** Fails every promised quote whose deadline is before `finalChainTimeSecs`; returns the RFQ ids. */
export async function expireDeliveries(tx: Tx, deps: ServiceDeps, finalChainTimeSecs: number, now: number, limit = 200): Promise<string[]> {
  const overdue = await overduePromisedQuotes(tx, finalChainTimeSecs, limit);
  const failed: string[] = [];
  for (const { id, rfq_id } of overdue) {
    const rfq = await lockRfqIn(tx, rfq_id, 'QUOTED');
    if (!rfq) continue;
    const quote = await lockQuoteIn(tx, id, 'SELECTED');
    if (!quote) continue;
    const instrument = await resolveInstrument(deps, rfq.instrument_id);
    if (rfq.fill === 'SWEEP') {
      // One leg of a sweep fails alone; its RFQ ends with its last leg (sweep-legs.ts).
      await recordMakerFailure(tx, { makerId: quote.maker_id, rfqId: rfq.id, quoteId: quote.id, reason: 'notDelivered', at: now });
      const written = await failSweepLeg(tx, deps, { rfq, quote, instrument, now });
      await finishSweepIfEnded(tx, deps, { rfq: written, instrument, now });
      failed.push(rfq.id);
      continue;
    }
    const decision = decideRfq(rfqState(rfq, instrument), 'settlementFailed');
    await endTakerLock(tx, rfq.id, decision.takerLock, 'deliveryMissed', now);
    // A missed delivery is a maker failure (it may suspend the maker), recorded with the failure.
    await recordMakerFailure(tx, { makerId: quote.maker_id, rfqId: rfq.id, quoteId: quote.id, reason: 'notDelivered', at: now });
    // The quote's frame, then the RFQ's and the taker's balances (the lock is released above).
    await persistQuote(tx, deps, { quote, decision: decideQuote(quote, 'fail'), rfq, instrument, now });
    await persistRfq(
      tx,
      deps,
      { rfq, decision, fields: { failure_code: 'SETTLEMENT_FAILED', failure_reason: 'the winning maker did not deliver inside its delivery window' }, instrument, now },
    );
    failed.push(rfq.id);
  }
  return failed;
}
