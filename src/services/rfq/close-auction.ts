/**
 * Auction close at `auctionEndsAt`, exactly once across nodes: the RFQ row is taken FOR UPDATE
 * SKIP LOCKED while still PENDING and due, so a second closer (timer or sweep, this node or
 * another) finds nothing to do. autoAccept: the best conforming quote, judged at the deadline
 * instant itself so a late closer changes nothing, is selected, else FAILED with the lock
 * released. Taker-driven: CANCELLED. Open quotes that were not selected become EXPIRED.
 */
import { inTransaction } from '../../store/outbox.ts';
import { auctionEndEvent, selectBest, transitionQuote, transitionRfq, type QuoteStatus, type RfqStatus } from '../../domain/rfq/index.ts';
import { endLock } from '../../store/ledger.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from './create-rfq.ts';
import { emitBalances, emitQuoteStatus, emitRfqStatus } from './events.ts';
import { quoteTerms, quotesOfRfq, rfqTerms, type QuoteRow, type RfqRow } from './rows.ts';
import { selectQuote } from './select-quote.ts';

export interface ClosedAuction {
  rfqId: string;
  outcome: 'QUOTED' | 'FAILED' | 'CANCELLED';
  auctionEndsAt: number;
  closedAt: number;
  settlementDeadline: number | null;
}

export async function closeAuction(deps: ServiceDeps, rfqId: string): Promise<ClosedAuction | null> {
  const now = deps.clock.now();
  const closed = await inTransaction(deps.db, async (tx) => {
    const rfq = await tx
      .selectFrom('rfqs')
      .selectAll()
      .where('id', '=', rfqId)
      .where('status', '=', 'PENDING')
      .where('auction_ends_at', '<=', now)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!rfq) return null;
    // Stamped once the row is ours, so quotedAt and the lateness it shows include any queueing.
    return closeLockedAuction(tx, deps, rfq, deps.clock.now());
  });
  if (closed?.settlementDeadline) deps.hooks.quoteSelected(closed.rfqId, closed.settlementDeadline);
  return closed;
}

/** Every due auction this node can claim now, oldest first, each in its own transaction. */
export async function dueAuctions(deps: ServiceDeps, limit: number): Promise<string[]> {
  const rows = await deps.db
    .selectFrom('rfqs')
    .select('id')
    .where('status', '=', 'PENDING')
    .where('auction_ends_at', '<=', deps.clock.now())
    .orderBy('auction_ends_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

async function expireOpenQuotes(tx: Tx, rfq: RfqRow, quotes: QuoteRow[], deps: ServiceDeps, now: number): Promise<void> {
  const instrument = await resolveInstrument(deps, rfq.instrument_id);
  for (const quote of quotes) {
    if (quote.status !== 'SUBMITTED') continue;
    const expired = await tx
      .updateTable('quotes')
      .set({ status: transitionQuote(quote.status as QuoteStatus, 'expire'), updated_at: now })
      .where('id', '=', quote.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await emitQuoteStatus(tx, expired, rfq, instrument, now);
  }
}

async function closeLockedAuction(tx: Tx, deps: ServiceDeps, rfq: RfqRow, now: number): Promise<ClosedAuction> {
  const instrument = await resolveInstrument(deps, rfq.instrument_id);
  const quotes = await quotesOfRfq(tx, rfq.id, 'update');
  const terms = rfqTerms(rfq, instrument);
  const winner = rfq.auto_accept ? selectBest(terms, quotes.map((q) => ({ ...quoteTerms(q), row: q })), rfq.auction_ends_at) : null;
  const event = auctionEndEvent(rfq.auto_accept, winner !== null);
  if (winner) {
    const selected = await selectQuote(tx, deps, { rfq, winner: winner.row, quotes, instrument, how: 'autoSelect', now });
    return { rfqId: rfq.id, outcome: 'QUOTED', auctionEndsAt: rfq.auction_ends_at, closedAt: now, settlementDeadline: selected.rfq.settlement_deadline_secs };
  }
  const status = transitionRfq(rfq.status as RfqStatus, event);
  const failed = status === 'FAILED';
  const updated = await tx
    .updateTable('rfqs')
    .set({
      status,
      updated_at: now,
      ...(failed ? { failure_code: 'NO_CONFORMING_QUOTE', failure_reason: 'no conforming quote by the auction deadline' } : {}),
    })
    .where('id', '=', rfq.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await expireOpenQuotes(tx, updated, quotes, deps, now);
  const released = await endLock(tx, 'rfq', rfq.id, 'release', failed ? 'auctionFailed' : 'auctionEnded', now);
  await emitRfqStatus(tx, updated, instrument, now);
  if (released) await emitBalances(tx, deps, rfq.account_id, now);
  return { rfqId: rfq.id, outcome: failed ? 'FAILED' : 'CANCELLED', auctionEndsAt: rfq.auction_ends_at, closedAt: now, settlementDeadline: null };
}
