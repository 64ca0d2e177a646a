/**
 * Persists the RFQ and quote machines' decisions (src/domain/rfq/rfq-state.ts, quote-state.ts):
 * each status through its one writer, a compare-and-set on the status decided from, then the
 * decision's frames as outbox rows (src/services/frames.ts) in the same transaction. The caller
 * has applied the decision's lock effect and postings first, so a balances frame shows them.
 * Use cases persist transitions here and never append a frame themselves.
 */
import type { Instrument, QuoteDecision, RfqDecision, RfqEvent, RfqState } from '../../domain/rfq/index.ts';
import { writeQuoteStatus, writeQuoteStatuses, type QuoteOutcomeFields, type QuoteSettlementFields } from '../../store/quote-status.ts';
import { writeRfqStatus, writeRfqStatuses, type RfqCloseFields, type RfqOutcomeFields } from '../../store/rfq-status.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { pushFrames } from '../frames.ts';
import type { QuoteRow, RfqRow } from './rows.ts';

/** What the RFQ machine is told of a row (`decideRfq`'s input). */
export function rfqState(row: RfqRow, instrument: Pick<Instrument, 'type'>): RfqState {
  return { id: row.id, status: row.status, takerAccountId: row.account_id, autoAccept: row.auto_accept, instrumentType: instrument.type };
}

/** Writes one RFQ's transition and its fields, and pushes its frames; returns the row as written. */
export async function persistRfq(
  tx: Tx,
  deps: ServiceDeps,
  t: { rfq: RfqRow; decision: RfqDecision<RfqEvent>; fields?: RfqOutcomeFields; instrument: Instrument; now: number },
): Promise<RfqRow> {
  const row = await writeRfqStatus(tx, { id: t.rfq.id, from: t.rfq.status, to: t.decision.status, ...(t.fields ? { fields: t.fields } : {}) }, t.now);
  await pushFrames(tx, deps, t.decision.frames, { rfqs: [row], instrumentOf: () => t.instrument }, t.now);
  return row;
}

/**
 * Writes many RFQs' transitions in one statement (the auction close), then pushes their frames in
 * order (each taker's balances once).
 */
export async function persistRfqs(
  tx: Tx,
  deps: ServiceDeps,
  changes: Array<{ rfq: RfqRow; decision: RfqDecision<RfqEvent>; fields: RfqCloseFields }>,
  instrumentOf: (rfqId: string) => Instrument,
  now: number,
): Promise<RfqRow[]> {
  const rows = await writeRfqStatuses(tx, changes.map((c) => ({ id: c.rfq.id, from: c.rfq.status, to: c.decision.status, fields: c.fields })), now);
  await pushFrames(tx, deps, changes.flatMap((c) => c.decision.frames), { rfqs: rows, instrumentOf }, now);
  return rows;
}

/**
 * Writes one quote's transition and its fields, and pushes its frames; `rfq` is the quote's RFQ
 * (its frames name the RFQ's instrument, side and taker, which no transition changes).
 */
export async function persistQuote(
  tx: Tx,
  deps: ServiceDeps,
  t: { quote: QuoteRow; decision: QuoteDecision; fields?: QuoteOutcomeFields; rfq: RfqRow; instrument: Instrument; now: number },
): Promise<QuoteRow> {
  const row = await writeQuoteStatus(tx, { id: t.quote.id, from: t.quote.status, to: t.decision.status, ...(t.fields ? { fields: t.fields } : {}) }, t.now);
  await pushFrames(tx, deps, t.decision.frames, { rfqs: [t.rfq], quotes: [row], instrumentOf: () => t.instrument }, t.now);
  return row;
}

/**
 * Writes many quotes' transitions in one statement (a selection's winner and losers, an auction
 * close), then pushes their frames in the order of `changes`; rows come back in that order.
 */
export async function persistQuotes(
  tx: Tx,
  deps: ServiceDeps,
  changes: Array<{ quote: QuoteRow; decision: QuoteDecision; settlementDeadlineSecs: number | null; fields?: QuoteSettlementFields }>,
  of: { rfqs: readonly RfqRow[]; instrumentOf: (rfqId: string) => Instrument },
  now: number,
): Promise<QuoteRow[]> {
  const rows = await writeQuoteStatuses(
    tx,
    changes.map((c) => ({ id: c.quote.id, from: c.quote.status, to: c.decision.status, settlementDeadlineSecs: c.settlementDeadlineSecs, ...(c.fields ? { fields: c.fields } : {}) })),
    now,
  );
  await pushFrames(tx, deps, changes.flatMap((c) => c.decision.frames), { rfqs: of.rfqs, quotes: rows, instrumentOf: of.instrumentOf }, now);
  return rows;
}
