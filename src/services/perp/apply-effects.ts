/**
 * Writes the effects of one execution transition (domain/perp/execution.ts) inside the caller's
 * transaction, the RFQ and its quotes already locked, and the events the spec lists for them:
 * `rfqStatus` at QUOTED and at the end (no fill, no txHash), `quoteStatus` to each maker (with
 * `position` while a backup, the fill fields on the winner), nothing on `quotes` at settlement.
 * A refusal (RFQ still PENDING) tells the taker through `quotes`, as a maker cancel does, since the
 * quote it may accept is gone. No ledger entry and no lock: the taker trades from its venue account.
 */
import { decideQuote, transitionQuote, transitionRfq, type Instrument, type QuoteStatus, type RfqStatus } from '../../domain/rfq/index.ts';
import type { ExecutionEffect } from '../../domain/perp/execution.ts';
import { writeQuoteStatus, type QuoteOutcomeFields } from '../../store/quote-status.ts';
import { writeRfqStatus, type RfqOutcomeFields } from '../../store/rfq-status.ts';
import type { Tx } from '../../store/transaction.ts';
import { emitQuoteStatus, emitQuoteUpdate, emitRfqStatus } from '../rfq/events.ts';
import type { QuoteRow, RfqRow } from '../rfq/rows.ts';
import { recordMakerFailure } from '../settlement/maker-failures.ts';
import { countSelection } from '../protection/selection-guard.ts';

export interface EffectContext {
  tx: Tx;
  rfq: RfqRow;
  quotes: Map<string, QuoteRow>;
  instrument: Instrument;
  now: number;
}

/** A quote's transition (or, with `to` its current status, a field change guarded by it). */
async function updateQuote(c: EffectContext, quote: QuoteRow, to: QuoteStatus, fields: QuoteOutcomeFields = {}): Promise<QuoteRow> {
  const row = await writeQuoteStatus(c.tx, { id: quote.id, from: quote.status, to, fields }, c.now);
  c.quotes.set(row.id, row);
  return row;
}

/** The RFQ's transition (or, with `to` its current status, a field change guarded by it). */
async function updateRfq(c: EffectContext, to: RfqStatus, fields: RfqOutcomeFields = {}): Promise<RfqRow> {
  c.rfq = await writeRfqStatus(c.tx, { id: c.rfq.id, from: c.rfq.status, to, fields }, c.now);
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
  for (const backup of backups(c)) {
    const released = await updateQuote(c, backup, transitionQuote(backup.status, 'notSelect'), { position: null });
    await emitQuoteStatus(c.tx, released, c.rfq, c.instrument, c.now);
  }
}

async function renumber(c: EffectContext, cascade: readonly string[]): Promise<void> {
  for (const [index, id] of cascade.entries()) {
    const quote = quoteOf(c, id);
    if (quote.position === index + 1) continue;
    const moved = await updateQuote(c, quote, quote.status, { position: index + 1 });
    await emitQuoteStatus(c.tx, moved, c.rfq, c.instrument, c.now);
  }
}

export async function applyEffect(c: EffectContext, effect: ExecutionEffect): Promise<void> {
  switch (effect.kind) {
    case 'refuseQuote': {
      const quote = quoteOf(c, effect.quoteId);
      // The RFQ moved on (cancelled, closed) or the maker withdrew the quote meanwhile: nothing to refuse.
      if (c.rfq.status !== 'PENDING' || quote.status !== 'SUBMITTED') return;
      transitionRfq(c.rfq.status, 'perpRefused');
      const decision = decideQuote(quote.status, 'perpRefused');
      const failed = await updateQuote(c, quote, decision.status);
      await emitQuoteStatus(c.tx, failed, c.rfq, c.instrument, c.now);
      if (decision.tellsTaker) await emitQuoteUpdate(c.tx, failed, c.rfq, c.instrument, c.now);
      return;
    }
    case 'select': {
      const winner = quoteOf(c, effect.quoteId);
      const rfq = await updateRfq(c, transitionRfq(c.rfq.status, 'accept'), { quoted_at: c.now, selected_quote_id: winner.id });
      await emitRfqStatus(c.tx, rfq, c.instrument, c.now);
      const selected = await updateQuote(c, winner, transitionQuote(winner.status, 'select'), { settlement_deadline_secs: rfq.settlement_deadline_secs });
      await emitQuoteStatus(c.tx, selected, rfq, c.instrument, c.now);
      await countSelection(c.tx, selected, c.instrument, c.now);
      const inCascade = new Set(effect.cascade);
      await renumber(c, effect.cascade);
      for (const quote of [...c.quotes.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
        if (quote.status !== 'SUBMITTED' || inCascade.has(quote.id)) continue;
        const loser = await updateQuote(c, quote, transitionQuote(quote.status, 'notSelect'));
        await emitQuoteStatus(c.tx, loser, rfq, c.instrument, c.now);
      }
      return;
    }
    case 'makerFailure': {
      const quote = quoteOf(c, effect.quoteId);
      await recordMakerFailure(c.tx, { makerId: quote.maker_id, rfqId: c.rfq.id, quoteId: quote.id, reason: `perpMakerOrder: ${effect.reason}`.slice(0, 500), at: c.now });
      return;
    }
    case 'failWinner': {
      const quote = quoteOf(c, effect.quoteId);
      const failed = await updateQuote(c, quote, transitionQuote(quote.status, 'fail'));
      await emitQuoteStatus(c.tx, failed, c.rfq, c.instrument, c.now);
      return;
    }
    case 'promote': {
      const quote = quoteOf(c, effect.quoteId);
      const rfq = await updateRfq(c, c.rfq.status, { selected_quote_id: quote.id });
      const promoted = await updateQuote(c, quote, transitionQuote(quote.status, 'select'), { position: null, settlement_deadline_secs: rfq.settlement_deadline_secs });
      await emitQuoteStatus(c.tx, promoted, rfq, c.instrument, c.now);
      await countSelection(c.tx, promoted, c.instrument, c.now);
      await renumber(c, effect.cascade);
      return;
    }
    case 'settle': {
      const quote = quoteOf(c, effect.quoteId);
      const rfq = await updateRfq(c, transitionRfq(c.rfq.status, 'settled'), { settled_at: c.now, selected_quote_id: quote.id });
      const settled = await updateQuote(c, quote, transitionQuote(quote.status, 'settle'), {
        settled_at: c.now,
        perp_filled_size: effect.fill.filledSize,
        perp_fill_avg_px: effect.fill.avgPx,
        perp_maker_filled_size: effect.fill.makerFilledSize,
      });
      await emitQuoteStatus(c.tx, settled, rfq, c.instrument, c.now);
      await releaseBackups(c);
      await emitRfqStatus(c.tx, rfq, c.instrument, c.now);
      return;
    }
    case 'failRfq': {
      const rfq = await updateRfq(c, transitionRfq(c.rfq.status, 'settlementFailed'), {
        failure_code: effect.code,
        failure_reason: effect.reason.slice(0, 500),
      });
      const quote = effect.quoteId === null ? undefined : c.quotes.get(effect.quoteId);
      if (quote && quote.status === 'SELECTED') {
        const failed = await updateQuote(c, quote, transitionQuote(quote.status, 'fail'));
        await emitQuoteStatus(c.tx, failed, rfq, c.instrument, c.now);
      }
      await releaseBackups(c);
      await emitRfqStatus(c.tx, rfq, c.instrument, c.now);
      return;
    }
  }
}
