/**
 * Applies the effects of one execution transition (domain/perp/execution.ts) inside the caller's
 * transaction, the RFQ and its quotes already locked: each row's change is decided here and staged
 * into the transition's one write (staged-writes.ts), with the events the spec lists for them:
 * `rfqStatus` at QUOTED and at the end (no fill, no txHash), `quoteStatus` to each maker (with
 * `position` while a backup, the fill fields on the winner), nothing on `quotes` at settlement.
 * A refusal (RFQ still PENDING) tells the taker through `quotes`, as a maker cancel does, since the
 * quote it may accept is gone. No ledger entry and no lock: the taker trades from its venue account.
 */
import { decideQuote, decideRfq, quoteFates, type Instrument, type QuoteEvent, type RfqEvent } from '../../domain/rfq/index.ts';
import type { ExecutionEffect } from '../../domain/perp/execution.ts';
import type { QuoteOutcomeFields } from '../../store/quote-status.ts';
import type { RfqOutcomeFields } from '../../store/rfq-status.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { rfqState } from '../rfq/persist-transition.ts';
import type { QuoteRow, RfqRow } from '../rfq/rows.ts';
import { recordMakerFailure } from '../settlement/maker-failures.ts';
import type { StagedWrites } from './staged-writes.ts';

export interface EffectContext {
  tx: Tx;
  deps: ServiceDeps;
  rfq: RfqRow;
  quotes: Map<string, QuoteRow>;
  instrument: Instrument;
  now: number;
  /** Where the rows' changes go: staged into the transition's one write (staged-writes.ts). */
  writes: StagedWrites;
}

/** A quote's transition, with its frames (the maker told; on a refusal the taker too). */
async function moveQuote(c: EffectContext, quote: QuoteRow, event: QuoteEvent, fields: QuoteOutcomeFields = {}): Promise<QuoteRow> {
  const decision = decideQuote(quote, event);
  const row = await c.writes.quote(quote, decision.status, decision.frames, fields);
  c.quotes.set(row.id, row);
  return row;
}

/** The RFQ's transition, with its frame to the taker (no lock, so no balances: the taker trades from its venue account). */
async function moveRfq(c: EffectContext, event: RfqEvent, fields: RfqOutcomeFields = {}): Promise<RfqRow> {
  const decision = decideRfq(rfqState(c.rfq, c.instrument), event);
  c.rfq = await c.writes.rfq(c.rfq, decision.status, decision.frames, fields);
  return c.rfq;
}

function quoteOf(c: EffectContext, id: string): QuoteRow {
  const quote = c.quotes.get(id);
  if (!quote) throw new Error(`quote ${id} is not on RFQ ${c.rfq.id}`);
  return quote;
}

/** Quotes still waiting as backups (SUBMITTED with a position). */
function backups(c: EffectContext): QuoteRow[] {
  return [...c.quotes.values()].filter((q) => q.status === 'SUBMITTED' && q.position !== null);
}

async function releaseBackups(c: EffectContext): Promise<void> {
  for (const backup of backups(c)) await moveQuote(c, backup, 'notSelect', { position: null });
}

async function renumber(c: EffectContext, cascade: readonly string[]): Promise<void> {
  for (const [index, id] of cascade.entries()) {
    const quote = quoteOf(c, id);
    if (quote.position === index + 1) continue;
    await moveQuote(c, quote, 'reposition', { position: index + 1 });
  }
}

export async function applyEffect(c: EffectContext, effect: ExecutionEffect): Promise<void> {
  switch (effect.kind) {
    case 'refuseQuote': {
      const quote = quoteOf(c, effect.quoteId);
      // The RFQ moved on (cancelled, closed) or the maker withdrew the quote meanwhile: nothing to refuse.
      if (c.rfq.status !== 'PENDING' || quote.status !== 'SUBMITTED') return;
      // The RFQ stays PENDING (its machine pushes nothing); the quote is FAILED, its maker and the taker told.
      decideRfq(rfqState(c.rfq, c.instrument), 'perpRefused');
      await moveQuote(c, quote, 'perpRefused');
      return;
    }
    case 'select': {
      const winner = quoteOf(c, effect.quoteId);
      const others = [...c.quotes.values()].filter((q) => q.id !== winner.id).sort((a, b) => (a.id < b.id ? -1 : 1));
      const [won, ...rest] = quoteFates([winner, ...others], [winner.id], { kept: effect.cascade });
      const rfq = await moveRfq(c, 'accept', { quoted_at: c.now, selected_quote_id: winner.id });
      const selected = await moveQuote(c, winner, won!.event, { settlement_deadline_secs: rfq.settlement_deadline_secs });
      c.writes.countSelection(selected.id);
      await renumber(c, effect.cascade);
      for (const { quote, event } of rest) await moveQuote(c, quote, event);
      return;
    }
    case 'makerFailure': {
      const quote = quoteOf(c, effect.quoteId);
      // Written in order with the staged changes: theirs first.
      await c.writes.flush(null);
      await recordMakerFailure(c.tx, { makerId: quote.maker_id, rfqId: c.rfq.id, quoteId: quote.id, reason: `perpMakerOrder: ${effect.reason}`.slice(0, 500), at: c.now });
      return;
    }
    case 'failWinner': {
      await moveQuote(c, quoteOf(c, effect.quoteId), 'fail');
      return;
    }
    case 'promote': {
      const quote = quoteOf(c, effect.quoteId);
      // The RFQ keeps its status and pushes nothing; only the quote it executes changes.
      c.rfq = await c.writes.rfq(c.rfq, c.rfq.status, [], { selected_quote_id: quote.id });
      const promoted = await moveQuote(c, quote, 'select', { position: null, settlement_deadline_secs: c.rfq.settlement_deadline_secs });
      c.writes.countSelection(promoted.id);
      await renumber(c, effect.cascade);
      return;
    }
    case 'settle': {
      // The winner and the released backups (their makers told), then the RFQ (its taker).
      const quote = quoteOf(c, effect.quoteId);
      await moveQuote(c, quote, 'settle', {
        settled_at: c.now,
        perp_filled_size: effect.fill.filledSize,
        perp_fill_avg_px: effect.fill.avgPx,
        perp_maker_filled_size: effect.fill.makerFilledSize,
      });
      await releaseBackups(c);
      await moveRfq(c, 'settled', { settled_at: c.now, selected_quote_id: quote.id });
      return;
    }
    case 'failRfq': {
      const quote = effect.quoteId === null ? undefined : c.quotes.get(effect.quoteId);
      if (quote && quote.status === 'SELECTED') await moveQuote(c, quote, 'fail');
      await releaseBackups(c);
      await moveRfq(c, 'settlementFailed', { failure_code: effect.code, failure_reason: effect.reason.slice(0, 500) });
      return;
    }
  }
}
