/**
 * Relay timing (DESIGN.md section 15): when a permit2 settlement is observed, its relay is timed
 * from the selection (`rfqs.quoted_at`); one past `relayGraceSecs` is recorded as the maker's
 * failure with reason `lateRelay` and its delay, in the settlement's own transaction, so late
 * relays count toward suspension exactly like failed settlements (maker-failures.ts). The trade
 * itself stands: the taker got what it was promised. A relay whose span from the selection
 * overlapped a service outage (service-outages.ts) is not held against the maker: with no node
 * alive it could neither read its selection nor be seen relaying, as the settlement expiry rules.
 */
import { isLateRelay, relayDelayMs, relayedAt } from '../../domain/settlement/index.ts';
import { readSettings } from '../../store/settings.ts';
import type { Tx } from '../../store/transaction.ts';
import type { QuoteRow, RfqRow } from '../rfq/rows.ts';
import { recordMakerFailure } from './maker-failures.ts';
import { outageDuring } from './service-outages.ts';

export interface RelaySighting {
  /** The relay's block timestamp, when the follower knows it. */
  blockTimestampSecs: number | null;
  /** When this node saw it settle. */
  observedAt: number;
}

/** Answers the relay's delay in ms, and records it as a failure when late. */
export async function judgeRelay(tx: Tx, rfq: Pick<RfqRow, 'id' | 'quoted_at'>, quote: Pick<QuoteRow, 'id' | 'maker_id'>, sighting: RelaySighting): Promise<number | null> {
  if (rfq.quoted_at === null) return null;
  const relayed = relayedAt(sighting.blockTimestampSecs, sighting.observedAt);
  const delayMs = relayDelayMs(rfq.quoted_at, relayed);
  // Read in the transaction: the settings cache would need a second connection (PGlite has one).
  const { relayGraceSecs } = await readSettings(tx);
  if (isLateRelay(delayMs, relayGraceSecs) && !(await outageDuring(tx, rfq.quoted_at, relayed))) {
    await recordMakerFailure(tx, { makerId: quote.maker_id, rfqId: rfq.id, quoteId: quote.id, reason: 'lateRelay', at: sighting.observedAt, delayMs });
  }
  return delayMs;
}
