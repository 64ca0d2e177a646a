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
import { sql } from 'kysely';
import { inTransaction } from '../../store/outbox.ts';
import { MAIN_CHAIN_CURSOR, readCursor } from '../../store/chain-cursor.ts';
import type { Reader } from '../../store/transaction.ts';
import { decideQuote, decideRfq } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { recordMakerFailure } from '../settlement/maker-failures.ts';
import { outageDuring } from '../settlement/service-outages.ts';
import { resolveInstrument } from './create-rfq.ts';
import { persistQuote, persistRfq, rfqState } from './persist-transition.ts';
import { endTakerLock } from './taker-lock.ts';

interface Clocks {
  wallSecs: number;
  /** Modes whose expiry another worker owns (promised: expire-delivery.ts). */
  excludedModes: string[];
  /** Final chain time, or -1 before the follower has a cursor (nothing on chain expires yet). */
  chainSecs: number;
  chainModes: string[];
}

/** Read the cursor before the RFQ rows: everything the cursor covers is committed by then. */
async function clocks(deps: ServiceDeps, db: Reader): Promise<Clocks> {
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

/** The SQL condition "this QUOTED RFQ's deadline has passed on the clock that judges it". */
function overdue(c: Clocks) {
  return sql<boolean>`r.settlement_deadline_secs < case when q.settlement_mode = any(${c.chainModes}::text[]) then ${c.chainSecs}::int8 else ${c.wallSecs}::int8 end
    and not coalesce(q.settlement_mode = any(${c.excludedModes}::text[]), false)`;
}

export async function overdueSettlements(deps: ServiceDeps, limit: number): Promise<string[]> {
  const c = await clocks(deps, deps.db);
  // The index on QUOTED deadlines narrows to those past the later of the two clocks' candidates.
  const rows = await sql<{ id: string }>`
    select r.id from rfqs r left join quotes q on q.id = r.selected_quote_id
    where r.status = 'QUOTED' and r.settlement_deadline_secs < ${Math.max(c.wallSecs, c.chainSecs)}::int8 and ${overdue(c)}
    order by r.settlement_deadline_secs
    limit ${limit}
  `.execute(deps.db);
  return rows.rows.map((r) => r.id);
}

export async function expireSettlement(deps: ServiceDeps, rfqId: string): Promise<boolean> {
  const now = deps.clock.now();
  return inTransaction(deps.db, async (tx) => {
    const c = await clocks(deps, tx);
    const due = await sql<{ id: string }>`
      select r.id from rfqs r left join quotes q on q.id = r.selected_quote_id
      where r.id = ${rfqId} and r.status = 'QUOTED' and ${overdue(c)}
      for update of r skip locked
    `.execute(tx);
    if (due.rows.length === 0) return false;
    const rfq = await tx.selectFrom('rfqs').selectAll().where('id', '=', rfqId).executeTakeFirstOrThrow();
    const quote = rfq.selected_quote_id
      ? await tx.selectFrom('quotes').selectAll().where('id', '=', rfq.selected_quote_id).forUpdate().executeTakeFirst()
      : undefined;
    const instrument = await resolveInstrument(deps, rfq.instrument_id);
    const decision = decideRfq(rfqState(rfq, instrument), 'settlementFailed');
    if (quote) {
      await persistQuote(tx, deps, { quote, decision: decideQuote(quote, 'fail'), rfq, instrument, now });
      // A permit2 winner is blamed only if it got a permit; a mode without a gateway settles nothing, so nobody is at fault.
      const gateway = deps.settlement[quote.settlement_mode];
      // Nor is it blamed when no node of the service was alive during part of its window (service-outages.ts).
      const makerCouldSettle = gateway !== undefined && (quote.settlement_mode !== 'permit2'
        || (quote.permit_signature !== null && !(await outageDuring(tx, rfq.quoted_at ?? rfq.auction_ends_at, rfq.settlement_deadline_secs * 1000))));
      if (makerCouldSettle) {
        await recordMakerFailure(tx, { makerId: quote.maker_id, rfqId: rfq.id, quoteId: quote.id, reason: 'notSettled', at: now });
      }
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
