/**
 * Applies the effects of one execution transition (domain/perp/execution.ts) inside the caller's
 * transaction, the RFQ and its quotes already locked: each row's change is decided here and staged
 * into the transition's one write (staged-writes.ts), with the events the spec lists for them:
 * `rfqStatus` at QUOTED and at the end (no fill, no txHash), `quoteStatus` to each maker (with
 * `position` while a backup, the fill fields on the winner), nothing on `quotes` at settlement.
 * A refusal (RFQ still PENDING) tells the taker through `quotes`, as a maker cancel does, since the
 * quote it may accept is gone. No ledger entry and no lock: the taker trades from its venue account.
 */
import { cutQuoteAmountInMakersFavour, decideQuote, decideRfq, quoteBase, quoteFates, quoteQuoteAmount, type Instrument, type QuoteEvent, type RfqEvent } from '../../domain/rfq/index.ts';
import { formatAmount, parseAmount } from '../../domain/money/index.ts';
import type { ExecutionEffect, TakerFill } from '../../domain/perp/execution.ts';
import { spreadPerpSweepFill, type SweepLegPlan } from '../../domain/perp/sweep.ts';
import type { SweepFillRecord } from '../../store/schema.ts';
import type { QuoteOutcomeFields } from '../../store/quote-status.ts';
import type { RfqOutcomeFields } from '../../store/rfq-status.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { rfqState } from '../rfq/persist-transition.ts';
import { quoteTerms, type QuoteRow, type RfqRow } from '../rfq/rows.ts';
import { fillRecord, selectedLegFields } from '../rfq/accept-sweep.ts';
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
  /** A SWEEP RFQ's legs as this transition leaves them (written with the RFQ's change, or by `syncSweepFills`). */
  fills?: SweepFillRecord[];
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
  const fills = currentFills(c);
  c.rfq = await c.writes.rfq(c.rfq, decision.status, decision.frames, fills === null ? fields : { ...fields, sweep_fills: fills });
  return c.rfq;
}

// ---- a perp SWEEP's legs (DESIGN.md section 14) ---------------------------------------------------

/** The sweep's legs with each quote's status as this transition leaves it; null on an ALL RFQ. */
function currentFills(c: EffectContext): SweepFillRecord[] | null {
  if (c.rfq.fill !== 'SWEEP') return null;
  const fills = c.fills ?? c.rfq.sweep_fills ?? [];
  return fills.map((f) => ({ ...f, status: c.quotes.get(f.quoteId)?.status ?? f.status }));
}

/**
 * After the effects of a transition: a sweep whose legs changed without an RFQ status change (a
 * leg's maker order refused, a backup promoted) has its `fills` written with the RFQ unchanged.
 */
export async function syncSweepFills(c: EffectContext): Promise<void> {
  const fills = currentFills(c);
  if (fills === null || JSON.stringify(fills) === JSON.stringify(c.rfq.sweep_fills ?? [])) return;
  c.rfq = await c.writes.rfq(c.rfq, c.rfq.status, [], { sweep_fills: fills });
}

/**
 * A leg's quote as selected, as a spot sweep writes it (accept-sweep.ts): a cut leg's legs
 * rewritten to its size, its quote leg scaled in the maker's favour; no fee (the venue bills the taker).
 */
function cutLeg(c: EffectContext, quote: QuoteRow, plan: SweepLegPlan) {
  const side = c.rfq.side;
  const legs = quoteTerms(quote);
  const baseQty = BigInt(plan.baseQty);
  const quoteQty = plan.cut ? cutQuoteAmountInMakersFavour(side, legs, baseQty) : quoteQuoteAmount(side, legs);
  const leg = { baseQty, quoteQty, cut: plan.cut, takerFee: 0n, takerQuoteAmount: quoteQty };
  return { fields: selectedLegFields(side, leg), fill: fillRecord(leg, { id: quote.id, status: 'SELECTED', tx_hash: null }) };
}

async function selectSweepLegs(c: EffectContext, legs: readonly SweepLegPlan[], cascade: readonly string[]): Promise<void> {
  const ids = legs.map((l) => l.quoteId);
  const rows = ids.map((id) => quoteOf(c, id));
  const others = [...c.quotes.values()].filter((q) => !ids.includes(q.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
  const fates = quoteFates([...rows, ...others], ids, { kept: cascade });
  const cuts = legs.map((plan, i) => cutLeg(c, rows[i]!, plan));
  c.fills = cuts.map((cut) => cut.fill);
  const rfq = await moveRfq(c, 'accept', { quoted_at: c.now, selected_quote_id: ids[0]! });
  for (const [i, row] of rows.entries()) {
    const selected = await moveQuote(c, row, fates[i]!.event, { ...cuts[i]!.fields, settlement_deadline_secs: rfq.settlement_deadline_secs });
    c.writes.countSelection(selected.id);
  }
  await renumber(c, cascade);
  for (const { quote, event } of fates.slice(rows.length)) await moveQuote(c, quote, event);
}

/** A size the venue reports, in base units; null when it is not one (finer than the base token). */
function baseUnits(text: string | null | undefined, decimals: number): bigint | null {
  if (text === null || text === undefined) return null;
  try {
    return parseAmount(text, decimals, { field: 'sz' });
  } catch {
    return null;
  }
}

/**
 * The taker's fill spread over the resting legs (spreadPerpSweepFill): each leg with a share
 * SETTLED with it (the taker's average price; its maker order's own fill beside it), each without
 * one FAILED; the RFQ SETTLED when a leg settled, else FAILED `EXECUTION_NOT_FILLED`.
 */
async function settleSweepLegs(c: EffectContext, legIds: readonly string[], fill: TakerFill): Promise<void> {
  const decimals = c.instrument.baseDecimals;
  const legs = legIds.map((id) => quoteOf(c, id));
  const taken = baseUnits(fill.filledSize, decimals) ?? 0n;
  const shares = spreadPerpSweepFill(legs.map((q) => ({ baseQty: q.selected_qty ?? quoteBase(c.rfq.side, quoteTerms(q)), makerFilled: baseUnits(fill.makerFills?.[q.id], decimals) })), taken);
  let first: string | null = null;
  for (const [i, quote] of legs.entries()) {
    const share = shares[i]!;
    if (share === 0n) {
      await moveQuote(c, quote, 'fail');
      continue;
    }
    first ??= quote.id;
    await moveQuote(c, quote, 'settle', { settled_at: c.now, perp_filled_size: formatAmount(share, decimals), perp_fill_avg_px: fill.avgPx, perp_maker_filled_size: fill.makerFills?.[quote.id] ?? null });
  }
  await releaseBackups(c);
  if (first !== null) await moveRfq(c, 'settled', { settled_at: c.now, selected_quote_id: first });
  else await moveRfq(c, 'settlementFailed', { failure_code: 'EXECUTION_NOT_FILLED', failure_reason: 'the taker order filled none of the legs' });
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
      if (effect.legs) return selectSweepLegs(c, effect.legs, effect.cascade);
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
      if (effect.leg) {
        // A sweep's leg refilled: the RFQ keeps its status; the backup is a leg of its own, at its size.
        const cut = cutLeg(c, quote, effect.leg);
        const promoted = await moveQuote(c, quote, 'select', { position: null, ...cut.fields, settlement_deadline_secs: c.rfq.settlement_deadline_secs });
        c.writes.countSelection(promoted.id);
        c.fills = [...(c.fills ?? c.rfq.sweep_fills ?? []), cut.fill];
        await renumber(c, effect.cascade);
        return;
      }
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
    case 'settleSweep':
      return settleSweepLegs(c, effect.legs, effect.fill);
    case 'failRfq': {
      // On a sweep every leg still SELECTED fails with it.
      const failing = c.rfq.fill === 'SWEEP' ? [...c.quotes.values()].filter((q) => q.status === 'SELECTED') : [effect.quoteId === null ? undefined : c.quotes.get(effect.quoteId)];
      for (const quote of failing) if (quote && quote.status === 'SELECTED') await moveQuote(c, quote, 'fail');
      await releaseBackups(c);
      await moveRfq(c, 'settlementFailed', { failure_code: effect.code, failure_reason: effect.reason.slice(0, 500) });
      return;
    }
  }
}
