/**
 * Turns the frames a decision lists (src/domain/frames.ts) into outbox rows, in the transition's
 * own transaction and in the decision's order: each is built from the entity as written and goes
 * to whom the spec says ("Which operation produces which event"). The only code that appends an
 * RFQ, quote or balances frame.
 */
import type { Frame } from '../domain/frames.ts';
import type { Instrument } from '../domain/rfq/index.ts';
import { appendBalancesEvent, appendEvent } from '../store/outbox.ts';
import type { Tx } from '../store/transaction.ts';
import type { BalanceRow } from '../store/ledger.ts';
import { balanceSnapshotFrame } from './account/balances.ts';
import type { ServiceDeps } from './deps.ts';
import type { QuoteRow, RfqRow } from './rfq/rows.ts';
import { makerQuoteView, openRfqRoute, openRfqView, quoteView, rfqView } from './rfq/views.ts';

/** The rows as written that the frames are about, and each RFQ's instrument. */
export interface FrameRows {
  rfqs?: readonly RfqRow[];
  quotes?: readonly QuoteRow[];
  instrumentOf?: (rfqId: string) => Instrument;
  /**
   * Balance rows the transition's write already answered under the accounts' frame locks (the
   * accept's and the auction close's one-call writes, src/store/accept-functions.ts,
   * close-functions.ts, through src/store/balance-frames.ts): the accounts among them are not read
   * again.
   */
  balances?: readonly BalanceRow[];
}

/**
 * Appends `frames` in order. An account's balances are pushed once per call (a batch that changes
 * one taker's lock twice sends one snapshot), built from its rows as the transaction commits them
 * (`pushBalances`).
 */
export async function pushFrames(tx: Tx, deps: ServiceDeps, frames: readonly Frame[], rows: FrameRows, now: number): Promise<void> {
  if (frames.length === 0) return;
  const pushedBalances = new Set<string>();
  const rfqs = new Map((rows.rfqs ?? []).map((r) => [r.id, r]));
  const quotes = new Map((rows.quotes ?? []).map((q) => [q.id, q]));
  const rfqOf = (id: string) => rfqs.get(id) ?? missing('RFQ', id);
  const instrumentOf = (rfqId: string) => rows.instrumentOf?.(rfqId) ?? missing('instrument of RFQ', rfqId);
  for (const frame of frames) {
    switch (frame.kind) {
      case 'rfqStatus': {
        const rfq = rfqOf(frame.rfqId);
        await appendEvent(tx, { accountId: rfq.account_id, topic: 'rfqStatus', frame: { kind: 'rfqStatus', ...rfqView(rfq, instrumentOf(rfq.id)) } }, now);
        break;
      }
      case 'openRfq': {
        const rfq = rfqOf(frame.rfqId);
        // One row for every maker: each session fills in its own pseudonym for the taker and
        // drops the route (src/ws/open-rfq-frame.ts).
        await appendEvent(tx, { accountId: null, topic: 'openRfqs', frame: { kind: 'rfq', ...openRfqView(rfq, instrumentOf(rfq.id)), route: openRfqRoute(rfq) } }, now);
        break;
      }
      case 'quoteStatus': {
        const quote = quotes.get(frame.quoteId) ?? missing('quote', frame.quoteId);
        const rfq = rfqOf(quote.rfq_id);
        await appendEvent(tx, { accountId: quote.maker_account_id, topic: 'quoteStatus', frame: { kind: 'quoteStatus', ...makerQuoteView(quote, rfq, instrumentOf(rfq.id)) } }, now);
        break;
      }
      case 'quoteUpdate': {
        const quote = quotes.get(frame.quoteId) ?? missing('quote', frame.quoteId);
        const rfq = rfqOf(quote.rfq_id);
        await appendEvent(tx, { accountId: rfq.account_id, topic: 'quotes', frame: { kind: 'quoteUpdate', ...quoteView(quote, rfq, instrumentOf(rfq.id)) } }, now);
        break;
      }
      case 'balances': {
        if (pushedBalances.has(frame.accountId)) break; // already pushed by this call
        pushedBalances.add(frame.accountId);
        pushBalances(tx, deps, frame.accountId, now, rows.balances);
        break;
      }
    }
  }
}

/**
 * An account's `balanceSnapshot`, built from its rows as they are when the transaction writes its
 * frames, read under the account's frame lock (src/store/balance-frames.ts), or from `answered`
 * when a write function read them under it. Exported for the operator's adjustment, which has no
 * decision's frames.
 */
export function pushBalances(tx: Tx, deps: ServiceDeps, accountId: string, now: number, answered?: readonly BalanceRow[]): void {
  const own = answered?.some((row) => row.account_id === accountId) ? answered.filter((row) => row.account_id === accountId) : undefined;
  appendBalancesEvent(tx, accountId, { build: (read) => balanceSnapshotFrame(deps, read), ...(own ? { rows: own } : {}) }, now);
}

function missing(what: string, id: string): never {
  throw new Error(`a frame is about ${what} ${id}, which the transition did not write`);
}
