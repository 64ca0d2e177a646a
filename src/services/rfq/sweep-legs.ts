/**
 * The legs of a SWEEP RFQ after selection: each selected quote settles or fails on its own,
 * with its own lock (`sweep_leg`); the RFQ stays QUOTED until every leg has ended, then is
 * SETTLED when at least one leg settled (its executed amounts and fee sum the settled legs) and
 * FAILED when none did. `rfqs.sweep_fills` keeps each leg's status and transaction in the same
 * transaction as the leg's quote. Every call runs inside the caller's transaction, with the RFQ
 * locked before its quotes (rows.ts).
 */
import { decideQuote, decideRfq, type Instrument } from '../../domain/rfq/index.ts';
import { sweepLegPostings } from '../../domain/ledger/index.ts';
import { endLock, postMovement } from '../../store/ledger.ts';
import type { SweepFillRecord } from '../../store/schema.ts';
import { lockQuotesById, writeSweepFills } from '../../store/sweep-quotes.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { pushFrames } from '../frames.ts';
import { blameUnsettled } from '../settlement/blame-unsettled.ts';
import { persistQuote, persistRfq, rfqState } from './persist-transition.ts';
import type { QuoteRow, RfqRow } from './rows.ts';

const ENDED = new Set(['SETTLED', 'FAILED']);

/**
 * At the settlement deadline: every leg still SELECTED fails (its lock released, its maker blamed
 * as a single winner would be), then the RFQ ends once every leg has. True when anything changed.
 */
export async function expireSweepLegs(tx: Tx, deps: ServiceDeps, s: { rfq: RfqRow; instrument: Instrument; now: number }): Promise<boolean> {
  const { instrument, now } = s;
  let rfq = s.rfq;
  const open = (rfq.sweep_fills ?? []).filter((f) => f.status === 'SELECTED').map((f) => f.quoteId);
  const quotes = await lockQuotesById(tx, open);
  // Promised legs fail on final chain time where the promised gateway runs (expire-delivery.ts).
  const ownedElsewhere = (q: QuoteRow) => q.settlement_mode === 'promised' && deps.settlement.promised !== undefined;
  let failed = 0;
  for (const quote of quotes.filter((q) => q.status === 'SELECTED' && !ownedElsewhere(q))) {
    rfq = await failSweepLeg(tx, deps, { rfq, quote, instrument, now });
    await blameUnsettled(tx, deps, rfq, quote, now);
    failed += 1;
  }
  const finished = await finishSweepIfEnded(tx, deps, { rfq, instrument, now });
  return failed > 0 || finished.status !== rfq.status;
}

/**
 * One leg settles (permit2 `RfqSettled`, or a promised delivery with `paidTo` maker_settlement,
 * checked by the caller against the leg's quote): the taker's lock for it consumed into the
 * ledger, its quote SETTLED with the transaction, its fill updated, and the RFQ ended if this was
 * its last open leg.
 */
export async function settleSweepLeg(
  tx: Tx,
  deps: ServiceDeps,
  s: { rfq: RfqRow; quote: QuoteRow; instrument: Instrument; txHash: string; now: number; paidTo?: 'custody' | 'maker_settlement' },
): Promise<void> {
  const { rfq, quote, instrument, txHash, now } = s;
  const paid = { token: quote.maker_receives_token, amount: quote.maker_receives_amount }; // taker -> maker, out of custody
  const received = { token: quote.maker_pays_token, amount: quote.maker_pays_amount }; // maker -> taker, into custody
  const lock = await endLock(tx, 'sweep_leg', quote.id, 'consume', 'settled', now);
  // The lock was taken for exactly this leg at selection (BUY its pay leg and fee, SELL its base); anything else is a bug that must not book.
  const expected = rfq.side === 'BUY' ? paid.amount + quote.taker_fee : paid.amount;
  if (!lock || lock.token !== paid.token || lock.amount !== expected) {
    throw new Error(`RFQ ${rfq.id}: the live lock of leg ${quote.id} does not cover its settlement`);
  }
  const postings = sweepLegPostings({ side: rfq.side, taker: rfq.account_id, paid, received, fee: quote.taker_fee, paidTo: s.paidTo ?? 'custody' });
  await postMovement(tx, { movementId: deps.ids.uuid(), kind: 'SETTLEMENT', reference: rfq.id, memo: txHash, at: now, postings, postingIds: postings.map(() => deps.ids.uuid()) });
  const settled = await persistQuote(tx, deps, { quote, decision: decideQuote(quote, 'settle'), fields: { settled_at: now, tx_hash: txHash }, rfq, instrument, now });
  await finishSweepIfEnded(tx, deps, { rfq: await recordLeg(tx, deps, { rfq, quote: settled, instrument, now }), instrument, now });
}

/** One leg fails: its quote FAILED, the taker's lock for it released, its fill updated. Answers the RFQ as written. */
export async function failSweepLeg(tx: Tx, deps: ServiceDeps, s: { rfq: RfqRow; quote: QuoteRow; instrument: Instrument; now: number }): Promise<RfqRow> {
  const { quote, instrument, now } = s;
  // The lock first, so the balances frame below shows it released.
  await endLock(tx, 'sweep_leg', quote.id, 'release', 'settlementFailed', now);
  const failed = await persistQuote(tx, deps, { quote, decision: decideQuote(quote, 'fail'), rfq: s.rfq, instrument, now });
  return recordLeg(tx, deps, { rfq: s.rfq, quote: failed, instrument, now });
}

/** Writes the leg's quote status into the RFQ's fills, and tells the taker (its RFQ with the fills, and its balances). */
export async function recordLeg(tx: Tx, deps: ServiceDeps, s: { rfq: RfqRow; quote: QuoteRow; instrument: Instrument; now: number }): Promise<RfqRow> {
  const fills = (s.rfq.sweep_fills ?? []).map((f): SweepFillRecord => (f.quoteId === s.quote.id ? { ...f, status: s.quote.status, txHash: s.quote.tx_hash } : f));
  const rfq = await writeSweepFills(tx, s.rfq.id, fills, s.now);
  await pushFrames(tx, deps, [{ kind: 'rfqStatus', rfqId: rfq.id }, { kind: 'balances', accountId: rfq.account_id }], { rfqs: [rfq], instrumentOf: () => s.instrument }, s.now);
  return rfq;
}

/** Once every leg has ended: SETTLED with the settled legs' sums, or FAILED when none settled; otherwise nothing. */
export async function finishSweepIfEnded(tx: Tx, deps: ServiceDeps, s: { rfq: RfqRow; instrument: Instrument; now: number }): Promise<RfqRow> {
  const { rfq, instrument, now } = s;
  const fills = rfq.sweep_fills ?? [];
  if (rfq.status !== 'QUOTED' || fills.some((f) => !ENDED.has(f.status))) return rfq;
  const settled = fills.filter((f) => f.status === 'SETTLED');
  if (settled.length === 0) {
    return persistRfq(tx, deps, {
      rfq,
      decision: decideRfq(rfqState(rfq, instrument), 'settlementFailed'),
      fields: { failure_code: 'SETTLEMENT_FAILED', failure_reason: 'no selected maker settled by the settlement deadline' },
      instrument,
      now,
    });
  }
  const sum = (pick: (f: SweepFillRecord) => string) => settled.reduce((total, f) => total + BigInt(pick(f)), 0n);
  const base = sum((f) => f.baseQty);
  const quoteSide = sum((f) => f.takerQuoteAmount);
  return persistRfq(tx, deps, {
    rfq,
    decision: decideRfq(rfqState(rfq, instrument), 'settled'),
    fields: {
      settled_at: now,
      executed_pay_amount: rfq.side === 'BUY' ? quoteSide : base,
      executed_recv_amount: rfq.side === 'BUY' ? base : quoteSide,
      taker_fee: sum((f) => f.takerFee),
    },
    instrument,
    now,
  });
}
