/**
 * Auction close at `auctionEndsAt`, exactly once across nodes, many auctions per transaction.
 *
 * Due RFQs are claimed FOR UPDATE SKIP LOCKED while still PENDING and due, so a second closer
 * (timer or sweep, this node or another) skips them. For each: autoAccept selects the best
 * conforming quote, judged at the `auctionEndsAt` instant itself so a late closer changes nothing,
 * and re-locks the taker's funds to exactly its cost; without one the RFQ is FAILED and the lock
 * released. Taker-driven: CANCELLED. Open quotes that were not selected become EXPIRED or
 * NOT_SELECTED. The batch's locks are one call (`rfq_close_lock`) and its writes another
 * (`rfq_close_write`), so a batch costs about as much as one close.
 */
import {
  auctionEndEvent,
  quoteFates,
  decideRfq,
  selectBest,
  takerLockAmount,
  type Instrument,
  type RfqDecision,
} from '../../domain/rfq/index.ts';
import type { LockChange } from '../../store/ledger.ts';
import { inTransaction } from '../../store/outbox.ts';
import { lockClose, type CloseLocked } from '../../store/close-functions.ts';
import { dueAuctionIds } from '../../store/rfq-deadlines.ts';
import type { SelectionFields } from './settlement-gateway.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from './create-rfq.ts';
import { persistClose, rfqState, type QuoteChange } from './persist-transition.ts';
import { quoteTerms, rfqTerms, type QuoteRow, type RfqRow } from './rows.ts';
import { SelectionGuard } from '../protection/selection-guard.ts';
import { closeSweep } from './close-sweep.ts';

export interface ClosedAuction {
  rfqId: string;
  outcome: 'QUOTED' | 'FAILED' | 'CANCELLED';
  auctionEndsAt: number;
  closedAt: number;
  settlementDeadline: number | null;
}

/**
 * Ids of due auctions, oldest first. A perp accept answered 202 in time is an acceptance: while
 * its checks run, the sweep leaves the RFQ to the executor (dueAuctionIds, rfq-deadlines.ts).
 */
export async function dueAuctions(deps: ServiceDeps, limit: number): Promise<string[]> {
  return dueAuctionIds(deps.db, deps.clock.now(), limit);
}

export async function closeAuctions(deps: ServiceDeps, rfqIds: string[]): Promise<ClosedAuction[]> {
  if (rfqIds.length === 0) return [];
  const closed = await inTransaction(deps.db, async (tx) => {
    // The RFQs, their quotes and the makers' protections in one call (close-functions.ts); the
    // protection windows are read at this instant, when their rows are locked.
    const locked = await lockClose(tx, rfqIds, deps.clock.now());
    if (locked.rfqs.length === 0) return [];
    // Stamped once the rows are ours, so quotedAt and the lateness it shows include any queueing.
    return closeLocked(tx, deps, locked, deps.clock.now());
  });
  for (const c of closed) if (c.settlementDeadline !== null) deps.hooks.quoteSelected(c.rfqId, c.settlementDeadline);
  return closed;
}

interface Decision {
  rfq: RfqRow;
  instrument: Instrument;
  winner: QuoteRow | null;
  decision: RfqDecision<AuctionEndEvent>;
  status: ClosedAuction['outcome'];
}

type AuctionEndEvent = ReturnType<typeof auctionEndEvent>;

async function closeLocked(tx: Tx, deps: ServiceDeps, locked: CloseLocked, now: number): Promise<ClosedAuction[]> {
  const { rfqs, quotes } = locked;
  const quotesByRfq = new Map<string, QuoteRow[]>();
  for (const q of quotes) quotesByRfq.set(q.rfq_id, [...(quotesByRfq.get(q.rfq_id) ?? []), q]);

  // Market-maker protection: the autoAccept winners' makers, counted in order; a tripped maker's
  // quotes are passed over, as are those of a maker suspended or made inactive since it quoted.
  const guard = SelectionGuard.fromLocked(locked.protections, locked.barred);
  const decisions: Decision[] = [];
  const lockChanges: LockChange[] = [];
  const swept: ClosedAuction[] = [];
  for (const rfq of rfqs) {
    const instrument = await resolveInstrument(deps, rfq.instrument_id);
    // An autoAccept sweep selects its legs on its own (close-sweep.ts); a taker-driven one closes as any other.
    if (rfq.fill === 'SWEEP' && rfq.auto_accept) {
      const outcome = await closeSweep(tx, deps, { rfq, quotes: quotesByRfq.get(rfq.id) ?? [], instrument, guard, now });
      swept.push({ rfqId: rfq.id, outcome, auctionEndsAt: rfq.auction_ends_at, closedAt: now, settlementDeadline: outcome === 'QUOTED' ? rfq.settlement_deadline_secs : null });
      continue;
    }
    const terms = rfqTerms(rfq, instrument);
    const own = quotesByRfq.get(rfq.id) ?? [];
    const candidates = own.filter((q) => guard.maySelect(q.maker_account_id, rfq.instrument_id));
    const best = rfq.auto_accept ? selectBest(terms, candidates.map((q) => ({ ...quoteTerms(q), row: q })), rfq.auction_ends_at) : null;
    if (best) guard.count(best.row, instrument);
    const decision = decideRfq(rfqState(rfq, instrument), auctionEndEvent(rfq.auto_accept, best !== null));
    decisions.push({ rfq, instrument, winner: best?.row ?? null, decision, status: decision.status });
    // Only an autoAccept RFQ holds a lock while PENDING (its bound): re-locked to the winner's cost, or released.
    if (decision.takerLock === 'lockWinnerCost' && best) {
      const kept = takerLockAmount(terms, { makerReceives: { token: best.row.maker_receives_token, amount: best.row.maker_receives_amount } });
      lockChanges.push({ ownerId: rfq.id, replacement: { lockId: deps.ids.uuid(), amount: kept }, reason: 'selection' });
    } else if (decision.takerLock === 'release') {
      lockChanges.push({ ownerId: rfq.id, replacement: null, reason: 'auctionFailed' });
    }
  }
  // Settlement adapters see each winner inside this transaction (permit signing and the like),
  // before it is written: their fields are decided from what the selection does not change, and
  // go into the one status write of the batch rather than a second write per winner.
  const fieldsOf = new Map<string, SelectionFields>();
  for (const d of decisions) {
    const gateway = d.winner ? deps.settlement[d.winner.settlement_mode] : undefined;
    if (d.winner && gateway) fieldsOf.set(d.winner.id, await gateway.onSelected(tx, { rfq: d.rfq, quote: d.winner, instrument: d.instrument, now }));
  }

  const quoteChanges: QuoteChange[] = [];
  for (const d of decisions) {
    for (const { quote: q, event, decision } of quoteFates(quotesByRfq.get(d.rfq.id) ?? [], d.winner ? [d.winner.id] : [])) {
      quoteChanges.push({
        quote: q,
        decision,
        settlementDeadlineSecs: event === 'select' ? d.rfq.settlement_deadline_secs : null,
        ...(event === 'select' && fieldsOf.has(q.id) ? { fields: fieldsOf.get(q.id)! } : {}),
      });
    }
  }

  // The funds, the RFQs and their quotes in one call (src/store/close-functions.ts), then the
  // RFQs' frames (each taker's balances once, as the write left them), then the quotes'.
  const instruments = new Map(decisions.map((d) => [d.rfq.id, d.instrument]));
  if (decisions.length === 0) {
    await guard.flush(tx, now);
    return swept;
  }
  const written = await persistClose(tx, deps, {
    locks: lockChanges,
    rfqs: decisions.map((d) => ({
      rfq: d.rfq,
      decision: d.decision,
      fields: {
        quoted_at: d.status === 'QUOTED' ? now : null,
        selected_quote_id: d.winner?.id ?? null,
        failure_code: d.status === 'FAILED' ? 'NO_CONFORMING_QUOTE' : null,
        failure_reason: d.status === 'FAILED' ? 'no conforming quote by the auction deadline' : null,
      },
    })),
    quotes: quoteChanges,
    instrumentOf: (rfqId) => instruments.get(rfqId)!,
    now,
  });
  for (const change of lockChanges) {
    // An autoAccept RFQ always holds its submission lock until it closes; a missing one is a bug
    // (thrown here, the whole batch rolls back, frames included).
    if (!written.ended.has(change.ownerId)) throw new Error(`autoAccept RFQ ${change.ownerId} has no live lock at close`);
  }
  await guard.flush(tx, now);

  return [
    ...swept,
    ...decisions.map((d) => ({
      rfqId: d.rfq.id,
      outcome: d.status,
      auctionEndsAt: d.rfq.auction_ends_at,
      closedAt: now,
      settlementDeadline: d.status === 'QUOTED' ? d.rfq.settlement_deadline_secs : null,
    })),
  ];
}
