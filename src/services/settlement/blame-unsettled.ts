/** Whom an unsettled selected quote is blamed on at the settlement deadline. */
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import type { QuoteRow, RfqRow } from '../rfq/rows.ts';
import { recordMakerFailure } from './maker-failures.ts';
import { outageDuring } from './service-outages.ts';

/**
 * Records the maker's failure to settle a selected quote by the deadline, when it had what it
 * needed: a permit2 winner is blamed only if it got a permit; a mode without a gateway settles
 * nothing, so nobody is at fault; nor is it blamed when no node of the service was alive during
 * part of its window (service-outages.ts).
 */
export async function blameUnsettled(tx: Tx, deps: ServiceDeps, rfq: RfqRow, quote: QuoteRow, now: number): Promise<void> {
  const gateway = deps.settlement[quote.settlement_mode];
  const makerCouldSettle = gateway !== undefined && (quote.settlement_mode !== 'permit2'
    || (quote.permit_signature !== null && !(await outageDuring(tx, rfq.quoted_at ?? rfq.auction_ends_at, rfq.settlement_deadline_secs * 1000))));
  if (makerCouldSettle) {
    await recordMakerFailure(tx, { makerId: quote.maker_id, rfqId: rfq.id, quoteId: quote.id, reason: 'notSettled', at: now });
  }
}
