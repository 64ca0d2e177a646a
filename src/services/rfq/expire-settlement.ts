/**
 * A QUOTED RFQ not settled by `settlementDeadline` (unix seconds) ends FAILED with
 * SETTLEMENT_FAILED; its winning quote FAILED; the taker's lock released; the winning maker's
 * failure recorded (maker-failures.ts) when it had what it needed to settle.
 *
 * Which clock judges the deadline: a quote whose settlement gateway settles on the chain
 * (`onChain`), or an xchange quote when the node operates the adapter, is judged on final chain time, the follower's cursor (`blockTimestampSecs`),
 * because the chain accepts a settlement while `block.timestamp <= settlementDeadline`: only
 * once a block past the deadline is final can no settlement arrive, and every block before it
 * has been processed by then (the cursor advances in the transaction that applied them). Any
 * other quote is judged on the wall clock. Where the promised gateway is wired, promised wins are
 * failed by expire-delivery.ts on chain time instead, so they are left out here, as are perp wins
 * (services/perp/execute-perp.ts ends them).
 */
import { inTransaction } from '../../store/outbox.ts';
import { MAIN_CHAIN_CURSOR, readCursor } from '../../store/chain-cursor.ts';
import type { Reader } from '../../store/transaction.ts';
import { lockOverdueSettlement, overdueSettlementIds, type SettlementClocks } from '../../store/rfq-deadlines.ts';
import { lockQuoteIfAny } from '../../store/rfq-rows.ts';
import { expireSweepLegs } from './sweep-legs.ts';
import { decideQuote, decideRfq } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { blameUnsettled } from '../settlement/blame-unsettled.ts';
import { resolveInstrument } from './create-rfq.ts';
import { persistQuote, persistRfq, rfqState } from './persist-transition.ts';
import { endTakerLock } from './taker-lock.ts';

/** Read the cursor before the RFQ rows: everything the cursor covers is committed by then. */
async function clocks(deps: ServiceDeps, db: Reader): Promise<SettlementClocks> {
  const chainModes = Object.entries(deps.settlement)
    .filter(([, gateway]) => gateway?.onChain)
    .map(([mode]) => mode);
  // An xchange swap executes on the followed chain while `block.timestamp <= expiration` (= the
  // deadline), so it is judged on final chain time too: by the wall clock, a swap mined in time but
  // not yet final failed its RFQ, released the taker's lock, and then found nothing to settle.
  if (deps.xchange) chainModes.push('xchange');
  const cursor = chainModes.length > 0 ? await readCursor(db, MAIN_CHAIN_CURSOR) : null;
  // Perp outcomes are the perp executor's alone: a taker order may be in flight at the deadline.
  const excludedModes = [...(deps.settlement.promised ? ['promised'] : []), 'perp'];
  return { wallSecs: Math.floor(deps.clock.now() / 1000), chainSecs: cursor?.blockTimestampSecs ?? -1, chainModes, excludedModes };
}

export async function overdueSettlements(deps: ServiceDeps, limit: number): Promise<string[]> {
  return overdueSettlementIds(deps.db, await clocks(deps, deps.db), limit);
}

export async function expireSettlement(deps: ServiceDeps, rfqId: string): Promise<boolean> {
  const now = deps.clock.now();
  return inTransaction(deps.db, async (tx) => {
    const c = await clocks(deps, tx);
    const rfq = await lockOverdueSettlement(tx, rfqId, c);
    if (!rfq) return false;
    const quote = rfq.selected_quote_id ? await lockQuoteIfAny(tx, rfq.selected_quote_id) : undefined;
    const instrument = await resolveInstrument(deps, rfq.instrument_id);
    // A sweep's legs end on their own; the RFQ ends once they all have (sweep-legs.ts).
    if (rfq.fill === 'SWEEP') return expireSweepLegs(tx, deps, { rfq, instrument, now });
    const decision = decideRfq(rfqState(rfq, instrument), 'settlementFailed');
    if (quote) {
      await persistQuote(tx, deps, { quote, decision: decideQuote(quote, 'fail'), rfq, instrument, now });
      await blameUnsettled(tx, deps, rfq, quote, now);
    }
    // The lock is released before the RFQ's frames, so the taker's balances show it.
    await endTakerLock(tx, rfq.id, decision.takerLock, 'settlementFailed', now);
    await persistRfq(
      tx,
      deps,
      { rfq, decision, fields: { failure_code: 'SETTLEMENT_FAILED', failure_reason: 'the winning maker did not settle by the settlement deadline' }, instrument, now },
    );
    return true;
  });
}
