/**
 * Turns the frames a decision lists (src/domain/frames.ts) into outbox rows, in the transition's
 * own transaction and in the decision's order: each is built from the entity as written and goes
 * to whom the spec says ("Which operation produces which event"). The only code that appends an
 * RFQ, quote or balances frame.
 */
import type { Frame } from '../domain/frames.ts';
import type { Instrument } from '../domain/rfq/index.ts';
import { appendEvent } from '../store/outbox.ts';
import type { Tx } from '../store/transaction.ts';
import { balanceSnapshotFrames, type BalanceRow } from './account/balances.ts';
import type { ServiceDeps } from './deps.ts';
import type { QuoteRow, RfqRow } from './rfq/rows.ts';
import { makerQuoteView, openRfqView, quoteView, rfqView } from './rfq/views.ts';

/** The rows as written that the frames are about, and each RFQ's instrument. */
export interface FrameRows {
  rfqs?: readonly RfqRow[];
  quotes?: readonly QuoteRow[];
  instrumentOf?: (rfqId: string) => Instrument;
  /**
   * Balance rows the transition's write already answered after its locks (the accept's and the
   * auction close's one-call writes, src/store/accept-functions.ts, close-functions.ts): the
   * accounts among them are not read again.
   */
  balances?: readonly BalanceRow[];
}

/**
 * Appends `frames` in order. An account's balances are read once (or taken from `rows.balances`),
 * after the caller applied every lock and posting of the transition, and pushed once per call (a batch that changes one taker's
 * lock twice sends one snapshot).
 */
export async function pushFrames(tx: Tx, deps: ServiceDeps, frames: readonly Frame[], rows: FrameRows, now: number): Promise<void> {
  if (frames.length === 0) return;
  const accounts = [...new Set(frames.flatMap((f) => (f.kind === 'balances' ? [f.accountId] : [])))];
  const balances = await balanceSnapshotFrames(tx, deps, accounts, rows.balances);
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
        await appendEvent(tx, { accountId: null, topic: 'openRfqs', frame: { kind: 'rfq', ...openRfqView(rfq, instrumentOf(rfq.id)) } }, now);
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
        const snapshot = balances.get(frame.accountId);
        if (!snapshot) break; // already pushed by this call
        balances.delete(frame.accountId);
        await appendEvent(tx, { accountId: frame.accountId, topic: 'balances', frame: snapshot }, now);
        break;
      }
    }
  }
}

function missing(what: string, id: string): never {
  throw new Error(`a frame is about ${what} ${id}, which the transition did not write`);
}
