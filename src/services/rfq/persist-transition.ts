/**
 * Persists the RFQ and quote machines' decisions (src/domain/rfq/rfq-state.ts, quote-state.ts):
 * each status through its one writer, a compare-and-set on the status decided from, then the
 * decision's frames as outbox rows (src/services/frames.ts) in the same transaction. The caller
 * has applied the decision's lock effect and postings first, so a balances frame shows them.
 * Use cases persist transitions here and never append a frame themselves. The accept's and the
 * auction close's writes are one database call each: the funds and every status of the
 * transition in one SQL function (src/store/accept-functions.ts, close-functions.ts), which
 * answers the rows as written and the balances after the locks, from which the frames are built.
 */
import type { Instrument, QuoteDecision, RfqDecision, RfqEvent, RfqState } from '../../domain/rfq/index.ts';
import { writeAcceptSelection } from '../../store/accept-functions.ts';
import { writeClose, type CloseWritten } from '../../store/close-functions.ts';
import type { LockChange, LockRequest } from '../../store/ledger.ts';
import { writeQuoteStatus, type QuoteOutcomeFields, type QuoteSettlementFields, type QuoteStatusWrite } from '../../store/quote-status.ts';
import { writeRfqStatus, type RfqCloseFields, type RfqOutcomeFields } from '../../store/rfq-status.ts';
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

/** A quote's transition in a batch: its decision, and the winner's settlement deadline and fields. */
export interface QuoteChange {
  quote: QuoteRow;
  decision: QuoteDecision;
  settlementDeadlineSecs: number | null;
  fields?: QuoteSettlementFields;
}

/**
 * The taker's accept: the funds lock, the RFQ's transition (QUOTED, `winner` selected) and every
 * quote's (the winner first, then the other open quotes) in one call (`rfq_accept_write`), then
 * the frames in the decisions' order (the RFQ and the taker's balances, then each quote). Null,
 * with nothing written, when the taker's balance does not cover `lock`.
 */
export async function persistAcceptSelection(
  tx: Tx,
  deps: ServiceDeps,
  t: { rfq: RfqRow; decision: RfqDecision<'accept'>; lock: LockRequest; quotes: [QuoteChange, ...QuoteChange[]]; instrument: Instrument; now: number },
): Promise<{ rfq: RfqRow; quotes: QuoteRow[] } | null> {
  const written = await writeAcceptSelection(tx, {
    now: t.now,
    lock: t.lock,
    rfq: { id: t.rfq.id, from: t.rfq.status, to: t.decision.status, selectedQuoteId: t.quotes[0].quote.id },
    quotes: t.quotes.map(quoteWrite),
  });
  if (!written) return null;
  await pushFrames(
    tx,
    deps,
    [...t.decision.frames, ...t.quotes.flatMap((c) => c.decision.frames)],
    { rfqs: [written.rfq], quotes: written.quotes, instrumentOf: () => t.instrument, balances: written.balances },
    t.now,
  );
  return { rfq: written.rfq, quotes: written.quotes };
}

/**
 * A batch of auction closes: the takers' lock changes, every RFQ's and quote's transition in one
 * call (`rfq_close_write`), then the frames: the RFQs' (each taker's balances once), then the
 * quotes' in the order of `quotes`. Answers what the write answered (the ended locks by owner).
 */
export async function persistClose(
  tx: Tx,
  deps: ServiceDeps,
  t: {
    locks: LockChange[];
    rfqs: Array<{ rfq: RfqRow; decision: RfqDecision<RfqEvent>; fields: RfqCloseFields }>;
    quotes: QuoteChange[];
    instrumentOf: (rfqId: string) => Instrument;
    now: number;
  },
): Promise<CloseWritten> {
  const written = await writeClose(tx, {
    now: t.now,
    locks: t.locks,
    rfqs: t.rfqs.map((c) => ({ id: c.rfq.id, from: c.rfq.status, to: c.decision.status, fields: c.fields })),
    quotes: t.quotes.map(quoteWrite),
  });
  await pushFrames(
    tx,
    deps,
    [...t.rfqs.flatMap((c) => c.decision.frames), ...t.quotes.flatMap((c) => c.decision.frames)],
    { rfqs: written.rfqs, quotes: written.quotes, instrumentOf: t.instrumentOf, balances: written.balances },
    t.now,
  );
  return written;
}

function quoteWrite(c: QuoteChange): QuoteStatusWrite {
  return { id: c.quote.id, from: c.quote.status, to: c.decision.status, settlementDeadlineSecs: c.settlementDeadlineSecs, ...(c.fields ? { fields: c.fields } : {}) };
}
