/**
 * Writes the effects of one execution transition (domain/perp/execution.ts) inside the caller's
 * transaction, the RFQ and its quotes already locked, and the events the spec lists for them:
 * `rfqStatus` at QUOTED and at the end (no fill, no txHash), `quoteStatus` to each maker (with
 * `position` while a backup, the fill fields on the winner), nothing on `quotes` at settlement.
 * A refusal (RFQ still PENDING) tells the taker through `quotes`, as a maker cancel does, since the
 * quote it may accept is gone. No ledger entry and no lock: the taker trades from its venue account.
 */
import { transitionQuote, transitionRfq, type Instrument, type QuoteStatus, type RfqStatus } from '../../domain/rfq/index.ts';
import type { ExecutionEffect } from '../../domain/perp/execution.ts';
import type { Tx } from '../../store/transaction.ts';
import { emitQuoteStatus, emitQuoteUpdate, emitRfqStatus } from '../rfq/events.ts';
import type { QuoteRow, RfqRow } from '../rfq/rows.ts';
import type { Updateable } from 'kysely';
import type { QuotesTable, RfqsTable } from '../../store/schema.ts';
import { recordMakerFailure } from '../settlement/maker-failures.ts';
import { countSelection } from '../protection/selection-guard.ts';

export interface EffectContext {
  tx: Tx;
  rfq: RfqRow;
  quotes: Map<string, QuoteRow>;
  instrument: Instrument;
  now: number;
}

async function updateQuote(c: EffectContext, quote: QuoteRow, fields: Updateable<QuotesTable>): Promise<QuoteRow> {
  const row = await c.tx
    .updateTable('quotes')
    .set({ ...fields, updated_at: c.now })
    .where('id', '=', quote.id)
    .where('status', '=', quote.status)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new Error(`quote ${quote.id} changed under its lock`);
  c.quotes.set(row.id, row);
  return row;
}

async function updateRfq(c: EffectContext, fields: Updateable<RfqsTable>): Promise<RfqRow> {
  const row = await c.tx
    .updateTable('rfqs')
    .set({ ...fields, updated_at: c.now })
    .where('id', '=', c.rfq.id)
    .where('status', '=', c.rfq.status)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new Error(`RFQ ${c.rfq.id} changed under its lock`);
  c.rfq = row;
  return row;
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
    const released = await updateQuote(c, backup, { status: transitionQuote('SUBMITTED', 'notSelect'), position: null });
    await emitQuoteStatus(c.tx, released, c.rfq, c.instrument, c.now);
  }
}

async function renumber(c: EffectContext, cascade: readonly string[]): Promise<void> {
  for (const [index, id] of cascade.entries()) {
    const quote = quoteOf(c, id);
    if (quote.position === index + 1) continue;
    const moved = await updateQuote(c, quote, { position: index + 1 });
    await emitQuoteStatus(c.tx, moved, c.rfq, c.instrument, c.now);
  }
}

export async function applyEffect(c: EffectContext, effect: ExecutionEffect): Promise<void> {
  switch (effect.kind) {
    case 'refuseQuote': {
      const quote = quoteOf(c, effect.quoteId);
      // The RFQ moved on (cancelled, closed) or the maker withdrew the quote meanwhile: nothing to refuse.
      if (c.rfq.status !== 'PENDING' || quote.status !== 'SUBMITTED') return;
      transitionRfq(c.rfq.status as RfqStatus, 'perpRefused');
      const failed = await updateQuote(c, quote, { status: transitionQuote('SUBMITTED', 'perpRefused') });
      await emitQuoteStatus(c.tx, failed, c.rfq, c.instrument, c.now);
      await emitQuoteUpdate(c.tx, failed, c.rfq, c.instrument, c.now);
      return;
    }
    case 'select': {
      const winner = quoteOf(c, effect.quoteId);
      const rfq = await updateRfq(c, { status: transitionRfq(c.rfq.status as RfqStatus, 'accept'), quoted_at: c.now, selected_quote_id: winner.id });
      await emitRfqStatus(c.tx, rfq, c.instrument, c.now);
      const selected = await updateQuote(c, winner, { status: transitionQuote(winner.status as QuoteStatus, 'select'), settlement_deadline_secs: rfq.settlement_deadline_secs });
      await emitQuoteStatus(c.tx, selected, rfq, c.instrument, c.now);
      await countSelection(c.tx, selected, c.instrument, c.now);
      const inCascade = new Set(effect.cascade);
      await renumber(c, effect.cascade);
      for (const quote of [...c.quotes.values()].sort((a, b) => (a.id < b.id ? -1 : 1))) {
        if (quote.status !== 'SUBMITTED' || inCascade.has(quote.id)) continue;
        const loser = await updateQuote(c, quote, { status: transitionQuote('SUBMITTED', 'notSelect') });
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
      const failed = await updateQuote(c, quote, { status: transitionQuote(quote.status as QuoteStatus, 'fail') });
      await emitQuoteStatus(c.tx, failed, c.rfq, c.instrument, c.now);
      return;
    }
    case 'promote': {
      const quote = quoteOf(c, effect.quoteId);
      const rfq = await updateRfq(c, { selected_quote_id: quote.id });
      const promoted = await updateQuote(c, quote, { status: transitionQuote(quote.status as QuoteStatus, 'select'), position: null, settlement_deadline_secs: rfq.settlement_deadline_secs });
      await emitQuoteStatus(c.tx, promoted, rfq, c.instrument, c.now);
      await countSelection(c.tx, promoted, c.instrument, c.now);
      await renumber(c, effect.cascade);
      return;
    }
    case 'settle': {
      const quote = quoteOf(c, effect.quoteId);
      const rfq = await updateRfq(c, { status: transitionRfq(c.rfq.status as RfqStatus, 'settled'), settled_at: c.now, selected_quote_id: quote.id });
      const settled = await updateQuote(c, quote, {
        status: transitionQuote(quote.status as QuoteStatus, 'settle'),
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
      const rfq = await updateRfq(c, {
        status: transitionRfq(c.rfq.status as RfqStatus, 'settlementFailed'),
        failure_code: effect.code,
        failure_reason: effect.reason.slice(0, 500),
      });
      const quote = effect.quoteId === null ? undefined : c.quotes.get(effect.quoteId);
      if (quote && quote.status === 'SELECTED') {
        const failed = await updateQuote(c, quote, { status: transitionQuote('SELECTED', 'fail') });
        await emitQuoteStatus(c.tx, failed, rfq, c.instrument, c.now);
      }
      await releaseBackups(c);
      await emitRfqStatus(c.tx, rfq, c.instrument, c.now);
      return;
    }
  }
}
