/**
 * Applies an RFQ transition's effect on the taker's lock, as the machine decided it
 * (`decideRfq`, src/domain/rfq/rfq-state.ts). `lockWinnerCost` needs the winner's cost and is
 * applied where the winner is chosen (select-quote.ts, close-auction.ts).
 */
import type { TakerLockEffect } from '../../domain/rfq/index.ts';
import { endLock, type LiveLock } from '../../store/ledger.ts';
import type { Tx } from '../../store/transaction.ts';

/** The lock that was ended (null when the RFQ held none), for the caller's postings and frames. */
export async function endTakerLock(tx: Tx, rfqId: string, effect: Exclude<TakerLockEffect, 'lockWinnerCost'>, reason: string, now: number): Promise<LiveLock | null> {
  if (effect === 'none') return null;
  return endLock(tx, 'rfq', rfqId, effect, reason, now);
}
