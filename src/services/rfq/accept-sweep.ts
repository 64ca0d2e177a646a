/**
 * POST /v1/rfq/requests/{id}/accept on a SWEEP RFQ: `{ sweep: true }` takes the sweep as the
 * service ranks it; `{ quotes: [{ quoteId, expectedVersion }] }` (or a plain `quoteId`) names the
 * quotes, which are then ranked the same way (src/domain/rfq/sweep-selection.ts). In one
 * transaction: the request's replay claim; the RFQ, then its quotes, FOR UPDATE; the checks (the
 * auction open, the named quotes this RFQ's at the versions the taker saw and conforming); the
 * makers' protection rows; the selection, which must reach `minFillQty` (else 409
 * QUOTE_NOT_ACCEPTABLE and nothing changes). Then each leg: the taker's funds locked for it
 * (`sweep_leg`), its quote SELECTED with its legs as selected (cut legs rewritten, `selectedQty`)
 * and its own settlement fields; every other open quote NOT_SELECTED; the RFQ QUOTED with its
 * `fills`. Each decision's frames go to the outbox with it, each maker's only to that maker.
 */
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money/index.ts';
import {
  assertAuctionOpen,
  conformsToSweep,
  quoteFates,
  decideRfq,
  selectSweep,
  takerPayToken,
  type Instrument,
  type Side,
  type SweepLeg,
  type SweepQuote,
} from '../../domain/rfq/index.ts';
import { endLock, lockFunds } from '../../store/ledger.ts';
import { inTransaction } from '../../store/outbox.ts';
import type { SweepFillRecord } from '../../store/schema.ts';
import type { QuoteOutcomeFields } from '../../store/quote-status.ts';
import { barredMakers, lockSweepRfq } from '../../store/sweep-quotes.ts';
import type { Tx } from '../../store/transaction.ts';
import { assertTimestampClaimed, claimInTransaction, type DeferredClaim } from '../auth/timestamp-claims.ts';
import type { ServiceDeps } from '../deps.ts';
import { SelectionGuard } from '../protection/selection-guard.ts';
import type { AcceptResult } from './accept-quote.ts';
import { resolveInstrument } from './create-rfq.ts';
import { persistQuote, persistRfq, rfqState } from './persist-transition.ts';
import { quoteTerms, sweepTerms, type QuoteRow, type RfqRow } from './rows.ts';
import { makerBarred, protectionWithdrew } from './select-quote.ts';
import { parsePerpTakerOrder, recordPerpAccept } from '../perp/accept-perp.ts';
import { perpCoin } from '../perp/venue-market.ts';
import { checkingPerpExecutionOf } from '../../store/perp-execution-rows.ts';
import { perpBaseStep } from '../../domain/perp/sweep.ts';
import type { ExecutionState, SweepExecution } from '../../domain/perp/execution.ts';

/** The most quotes one accept may name. */
export const MAX_NAMED_QUOTES = 64;

export interface SweepAcceptInput {
  /** Take the sweep as the service ranks it. */
  sweep?: boolean | null;
  /** Or rank only these. */
  quotes?: ReadonlyArray<{ quoteId: string; expectedVersion?: number | null }> | null;
  /** A perp SWEEP: the taker's IOC over the selection (DESIGN.md section 14, "Perp"). */
  perpTakerOrder?: unknown;
}

export interface SweepAcceptResult extends AcceptResult {
  /** The selected quotes in rank order (`quoteId` is the first). */
  quoteIds: string[];
}

/** A quote as the selection ranks it, with its row. */
export type Ranked = SweepQuote & { row: QuoteRow };

/**
 * A quote row as the sweep ranks it: divisible only at the version its maker let it be cut, and
 * never an xchange quote (its signed bundle fixes the amounts).
 */
export function rankedQuote(row: QuoteRow): Ranked {
  return { ...quoteTerms(row), allOrNone: row.divisible_version !== row.version || row.settlement_mode === 'xchange', row };
}

export async function acceptSweep(
  deps: ServiceDeps,
  taker: { accountId: string; address?: string },
  rfqId: string,
  input: SweepAcceptInput,
  claim?: DeferredClaim,
): Promise<SweepAcceptResult> {
  const named = input.quotes ?? null;
  if (named !== null && new Set(named.map((q) => q.quoteId)).size !== named.length) throw invalidField('quotes', 'duplicate', 'each quote may be named once');
  const now = deps.clock.now();
  // A perp's size grid comes from the venue's (cached) meta: read before any row is locked.
  const perp = await perpSweepContext(deps, rfqId, input);
  const outcome = await inTransaction(deps.db, async (tx) => {
    assertTimestampClaimed(await claimInTransaction(tx, claim && !claim.timestampClaimed ? claim : undefined), deps.clock.now());
    const locked = await lockSweepRfq(tx, rfqId, taker.accountId);
    if (!locked) throw new ServiceError('NOT_FOUND', 'no such RFQ');
    const { rfq, quotes } = locked;
    if (rfq.fill !== 'SWEEP') throw invalidField(named !== null ? 'quotes' : 'sweep', 'notAllowed', 'only an RFQ with fill SWEEP is accepted as a sweep');
    const perpOrder = perp === null ? null : parsePerpTakerOrder(input.perpTakerOrder);
    if (perpOrder !== null && rfq.status === 'PENDING' && now >= rfq.auction_ends_at) {
      // The same signed order as the accept being checked: answered as that one was (202).
      const open = await checkingPerpExecutionOf(tx, rfq.id);
      if (open && open.taker_order === JSON.stringify(perpOrder)) return { rfq, quoteIds: (open.state as unknown as ExecutionState).sweep?.legs.map((l) => l.quoteId) ?? [open.quote_id], replayed: true };
    }
    if (rfq.status !== 'PENDING') {
      if (isReplay(rfq, named)) return { rfq, quoteIds: (rfq.sweep_fills ?? []).map((f) => f.quoteId), replayed: true };
      assertAuctionOpen(rfq.auction_ends_at, deps.clock.now());
      throw new ServiceError('RFQ_NOT_PENDING', 'the RFQ is no longer pending', { status: rfq.status });
    }
    assertAuctionOpen(rfq.auction_ends_at, now);
    const instrument = await resolveInstrument(deps, rfq.instrument_id);
    const candidates = named === null ? quotes.filter((q) => q.status === 'SUBMITTED') : namedQuotes(rfq, instrument, quotes, named, now);
    const makers = [...new Set(candidates.map((q) => q.maker_account_id))].sort();
    const guard = await SelectionGuard.lock(tx, makers.map((m) => ({ makerAccountId: m, instrumentId: instrument.instrumentId })), now, await barredMakers(tx, makers, now));
    const selectable = candidates.filter((q) => {
      if (guard.maySelect(q.maker_account_id, instrument.instrumentId)) return true;
      // A named quote is refused as the single-quote accept refuses it; the service's own sweep passes it over.
      if (named !== null) throw guard.barred(q.maker_account_id) ? makerBarred() : protectionWithdrew();
      return false;
    });
    const terms = { ...sweepTerms(rfq, instrument), ...(perp ? { baseStep: perp.baseStep } : {}) };
    const ranked = selectable.map(rankedQuote);
    const selection = selectSweep(terms, ranked, now);
    if (selection === null) {
      const fillable = selectSweep({ ...terms, minFillQty: 0n }, ranked, now)?.filledBaseQty ?? 0n;
      throw new ServiceError('QUOTE_NOT_ACCEPTABLE', 'the quotes do not fill minFillQty', {
        reason: 'minFillQty',
        minFillQty: formatAmount(terms.minFillQty, instrument.baseDecimals),
        fillableQty: formatAmount(fillable, instrument.baseDecimals),
      });
    }
    if (perpOrder !== null && perp !== null) {
      // The perp executor selects once the taker's order passes its checks (execute-perp.ts).
      const sweep = perpSweepExecution(selection.legs, terms.minFillQty, perp.baseStep);
      const accepted = await recordPerpAccept(tx, deps, { rfq, quote: selection.legs[0]!.quote.row, order: perpOrder, now, sweep });
      return { rfq, quoteIds: selection.legs.map((l) => l.quote.row.id), replayed: accepted.replayed, perp: { executionId: accepted.executionId, order: perpOrder } };
    }
    // An autoAccept RFQ locked its bound at submission: it goes back before each leg locks its own (as at its close).
    if (rfq.auto_accept) await endLock(tx, 'rfq', rfq.id, 'release', 'selection', now);
    const written = await writeSelection(tx, deps, { rfq, quotes, legs: selection.legs, instrument, now });
    for (const leg of written.legs) guard.count(leg, instrument);
    await guard.flush(tx, now);
    return { rfq: written.rfq, quoteIds: written.legs.map((q) => q.id), replayed: false };
  });
  if (claim) claim.timestampClaimed = true;
  const perpAccepted = 'perp' in outcome ? outcome.perp : undefined;
  if (perpAccepted !== undefined) {
    if (!outcome.replayed) {
      if (taker.address !== undefined) deps.hooks.perpAcceptArrived?.(outcome.rfq.id, perpAccepted.order, taker.address);
      deps.hooks.perpAccepted?.(perpAccepted.executionId);
    }
  } else if (!outcome.replayed && outcome.rfq.status === 'QUOTED') deps.hooks.quoteSelected(outcome.rfq.id, outcome.rfq.settlement_deadline_secs);
  return { rfqId: outcome.rfq.id, quoteId: outcome.quoteIds[0]!, quoteIds: outcome.quoteIds, status: outcome.rfq.status, replayed: outcome.replayed };
}

/**
 * A perp SWEEP's accept: its perp order required, its size step from the venue's meta. Null for
 * a spot RFQ, which refuses a perp order.
 */
async function perpSweepContext(deps: ServiceDeps, rfqId: string, input: SweepAcceptInput): Promise<{ baseStep: bigint } | null> {
  const cached = await deps.quoteCaches.rfq(deps.db, rfqId);
  const instrument = cached ? await resolveInstrument(deps, cached.instrument_id) : null;
  if (instrument?.type !== 'PERP') {
    if (input.perpTakerOrder !== undefined) throw invalidField('perpTakerOrder', 'unexpected', 'perpTakerOrder is only for a perp RFQ');
    return null;
  }
  // Refused before anything is read when the order is missing or malformed.
  parsePerpTakerOrder(input.perpTakerOrder);
  const coin = await perpCoin(deps, instrument);
  return { baseStep: perpBaseStep({ baseDecimals: instrument.baseDecimals, szDecimals: coin.szDecimals }) };
}

/** The execution's sweep: each leg with the quote version and legs its taker's order was checked against. */
function perpSweepExecution(legs: SweepLeg<Ranked>[], minFillQty: bigint, baseStep: bigint): SweepExecution {
  return {
    legs: legs.map((l) => ({
      quoteId: l.quote.row.id,
      baseQty: l.baseQty.toString(),
      cut: l.cut,
      state: 'pending' as const,
      version: l.quote.row.version,
      makerPays: l.quote.row.maker_pays_amount.toString(),
      makerReceives: l.quote.row.maker_receives_amount.toString(),
    })),
    backups: [],
    minFillQty: minFillQty.toString(),
    baseStep: baseStep.toString(),
  };
}

/** A retry of the sweep that won: the RFQ has legs and every quote named (if any) is one of them. */
function isReplay(rfq: RfqRow, named: SweepAcceptInput['quotes']): boolean {
  const legs = new Set((rfq.sweep_fills ?? []).map((f) => f.quoteId));
  if (legs.size === 0) return false;
  return named === null || named === undefined || named.every((q) => legs.has(q.quoteId));
}

/**
 * The named quotes, each this RFQ's, at the version the taker saw, and conforming to the sweep
 * (the same refusals as the single-quote accept).
 */
function namedQuotes(rfq: RfqRow, instrument: Instrument, quotes: readonly QuoteRow[], named: NonNullable<SweepAcceptInput['quotes']>, now: number): QuoteRow[] {
  const terms = sweepTerms(rfq, instrument);
  return named.map(({ quoteId, expectedVersion }) => {
    const quote = quotes.find((q) => q.id === quoteId);
    if (!quote) throw new ServiceError('NOT_FOUND', 'no such quote on this RFQ', { quoteId });
    if (expectedVersion !== undefined && expectedVersion !== null && expectedVersion !== quote.version) {
      throw new ServiceError('QUOTE_VERSION_MISMATCH', 'the quote was re-priced; read it again', { quoteId, currentVersion: quote.version });
    }
    if (!conformsToSweep(terms, { ...quoteTerms(quote), allOrNone: true }, now)) {
      throw new ServiceError('QUOTE_NOT_ACCEPTABLE', 'the quote is not open, outside its maker window, or above the limit per unit', { quoteId, reason: 'notConforming' });
    }
    return quote;
  });
}

/** A leg's quote as selected: a cut quote's legs and totals rewritten to the cut, with `selected_qty`. */
export function selectedLegFields(side: Side, leg: Pick<SweepLeg<Ranked>, 'baseQty' | 'quoteQty' | 'takerFee' | 'takerQuoteAmount' | 'cut'>): Pick<QuoteOutcomeFields, 'maker_pays_amount' | 'maker_receives_amount' | 'taker_fee' | 'taker_total' | 'selected_qty'> {
  if (!leg.cut) return {};
  return {
    maker_pays_amount: side === 'BUY' ? leg.baseQty : leg.quoteQty,
    maker_receives_amount: side === 'BUY' ? leg.quoteQty : leg.baseQty,
    taker_fee: leg.takerFee,
    taker_total: side === 'BUY' ? leg.takerQuoteAmount : leg.baseQty,
    selected_qty: leg.baseQty,
  };
}

/** What the taker's lock for one leg holds, in its pay token: BUY what it pays (fee included), SELL the base it delivers. */
function legLockAmount(side: Side, leg: Pick<SweepLeg<Ranked>, 'baseQty' | 'takerQuoteAmount'>): bigint {
  return side === 'BUY' ? leg.takerQuoteAmount : leg.baseQty;
}

export function fillRecord(leg: Pick<SweepLeg<Ranked>, 'baseQty' | 'quoteQty' | 'takerFee' | 'takerQuoteAmount' | 'cut'>, quote: Pick<QuoteRow, 'id' | 'status' | 'tx_hash'>): SweepFillRecord {
  return {
    quoteId: quote.id,
    baseQty: leg.baseQty.toString(),
    quoteQty: leg.quoteQty.toString(),
    takerFee: leg.takerFee.toString(),
    takerQuoteAmount: leg.takerQuoteAmount.toString(),
    cut: leg.cut,
    status: quote.status,
    txHash: quote.tx_hash,
  };
}

/**
 * Writes a sweep's selection (the caller holds the RFQ and its quotes, and has released an
 * autoAccept RFQ's bound lock): per leg the taker's lock, the RFQ QUOTED with its fills (by the
 * taker's accept, or `autoSelect` at the deadline), each leg SELECTED with its own settlement
 * fields, every other open quote NOT_SELECTED.
 */
export async function writeSelection(
  tx: Tx,
  deps: ServiceDeps,
  s: { rfq: RfqRow; quotes: readonly QuoteRow[]; legs: SweepLeg<Ranked>[]; instrument: Instrument; now: number; event?: 'accept' | 'autoSelect' },
): Promise<{ rfq: RfqRow; legs: QuoteRow[] }> {
  const { rfq, instrument, now } = s;
  // The taker's funds, one lock per leg, before the RFQ's frames (its taker's balances show them).
  for (const leg of s.legs) {
    await lockFunds(tx, {
      lockId: deps.ids.uuid(),
      accountId: rfq.account_id,
      token: takerPayToken({ side: rfq.side, base: instrument.base, quote: instrument.quote }),
      rail: 'EVM',
      amount: legLockAmount(rfq.side, leg),
      ownerKind: 'sweep_leg',
      ownerId: leg.quote.row.id,
      at: now,
    });
  }
  const fills = s.legs.map((leg) => fillRecord(leg, { id: leg.quote.row.id, status: 'SELECTED', tx_hash: null }));
  const quoted = await persistRfq(tx, deps, {
    rfq,
    decision: decideRfq(rfqState(rfq, instrument), s.event ?? 'accept'),
    fields: { quoted_at: now, selected_quote_id: fills[0]!.quoteId, sweep_fills: JSON.stringify(fills) },
    instrument,
    now,
  });
  const legIds = s.legs.map((leg) => leg.quote.row.id);
  const fates = quoteFates([...s.legs.map((leg) => leg.quote.row), ...s.quotes.filter((q) => !legIds.includes(q.id))], legIds);
  const legs: QuoteRow[] = [];
  for (const [i, leg] of s.legs.entries()) {
    const cut = selectedLegFields(rfq.side, leg);
    const asSelected: QuoteRow = { ...leg.quote.row, ...cut };
    // Its own authorisation, for its legs as selected (settlement-gateway.ts).
    const gateway = deps.settlement[asSelected.settlement_mode];
    const fields = gateway ? await gateway.onSelected(tx, { rfq: quoted, quote: asSelected, instrument, now }) : {};
    legs.push(await persistQuote(tx, deps, {
      quote: leg.quote.row,
      decision: fates[i]!.decision,
      fields: { ...cut, ...fields, settlement_deadline_secs: rfq.settlement_deadline_secs },
      rfq: quoted,
      instrument,
      now,
    }));
  }
  for (const { quote, decision } of fates.slice(s.legs.length)) await persistQuote(tx, deps, { quote, decision, rfq: quoted, instrument, now });
  return { rfq: quoted, legs };
}
