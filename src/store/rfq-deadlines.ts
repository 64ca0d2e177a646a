/**
 * The RFQs and quotes whose time has come: auctions due to close, QUOTED RFQs past their
 * settlement deadline, promised quotes past their delivery deadline. The sweeps read them here
 * and close or expire each in its own transaction (src/services/rfq).
 */
import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { DB, RfqsTable } from './schema.ts';
import type { Reader, Tx } from './transaction.ts';

/**
 * A perp accept answered 202 in time is an acceptance (the spec's "taker-driven RFQ with no
 * acceptance" is what the close cancels): while its checks run, the close leaves the RFQ to the
 * executor, which selects it (QUOTED) or refuses the quote, after which the next sweep closes it.
 * The close's lock call (`rfq_close_lock`, close-functions.ts) applies this rule again as it
 * takes the rows, and is what decides.
 */
const notBeingAccepted = (eb: ExpressionBuilder<DB, 'rfqs'>) =>
  eb.not(eb.exists(eb.selectFrom('perp_executions').select('perp_executions.id').whereRef('perp_executions.rfq_id', '=', 'rfqs.id').where('perp_executions.phase', '=', 'checking')));

/** Ids of the PENDING RFQs whose auction ended by `now` and that no perp accept is checking, oldest first. */
export async function dueAuctionIds(db: Reader, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('rfqs')
    .select('id')
    .where('status', '=', 'PENDING')
    .where('auction_ends_at', '<=', now)
    .where(notBeingAccepted)
    .orderBy('auction_ends_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** The clocks that judge a settlement deadline, by the selected quote's mode. */
export interface SettlementClocks {
  wallSecs: number;
  /** Modes whose expiry another worker owns (promised: expire-delivery.ts). */
  excludedModes: string[];
  /** Final chain time, or -1 before the follower has a cursor (nothing on chain expires yet). */
  chainSecs: number;
  chainModes: string[];
}

/** The SQL condition "this QUOTED RFQ's deadline has passed on the clock that judges it" (`r` the RFQ, `q` its selected quote). */
function overdue(c: SettlementClocks) {
  // A spot sweep is judged by its first leg's clock and never left out by its mode: its legs of
  // other modes end here (sweep-legs.ts leaves promised legs to expire-delivery.ts). A perp sweep
  // (its legs all perp) is its execution's alone, as a perp win is: its taker order may be at the venue.
  return sql<boolean>`r.settlement_deadline_secs < case when q.settlement_mode = any(${c.chainModes}::text[]) then ${c.chainSecs}::int8 else ${c.wallSecs}::int8 end
    and ((r.fill = 'SWEEP' and coalesce(q.settlement_mode, '') <> 'perp') or not coalesce(q.settlement_mode = any(${c.excludedModes}::text[]), false))`;
}

/** Ids of the QUOTED RFQs past their settlement deadline, earliest deadline first. */
export async function overdueSettlementIds(db: Reader, c: SettlementClocks, limit: number): Promise<string[]> {
  // The index on QUOTED deadlines narrows to those past the later of the two clocks' candidates.
  const rows = await sql<{ id: string }>`
    select r.id from rfqs r left join quotes q on q.id = r.selected_quote_id
    where r.status = 'QUOTED' and r.settlement_deadline_secs < ${Math.max(c.wallSecs, c.chainSecs)}::int8 and ${overdue(c)}
    order by r.settlement_deadline_secs
    limit ${limit}
  `.execute(db);
  return rows.rows.map((r) => r.id);
}

/**
 * The RFQ FOR UPDATE SKIP LOCKED if it is QUOTED and past its settlement deadline; undefined when
 * it is not (or another transaction holds it).
 */
export async function lockOverdueSettlement(tx: Tx, rfqId: string, c: SettlementClocks): Promise<Selectable<RfqsTable> | undefined> {
  const due = await sql<{ id: string }>`
    select r.id from rfqs r left join quotes q on q.id = r.selected_quote_id
    where r.id = ${rfqId} and r.status = 'QUOTED' and ${overdue(c)}
    for update of r skip locked
  `.execute(tx);
  if (due.rows.length === 0) return undefined;
  return tx.selectFrom('rfqs').selectAll().where('id', '=', rfqId).executeTakeFirstOrThrow();
}

/** The SELECTED promised quotes whose delivery deadline is before `finalChainTimeSecs`, by RFQ id. */
export async function overduePromisedQuotes(tx: Tx, finalChainTimeSecs: number, limit: number): Promise<Array<{ id: string; rfq_id: string }>> {
  return tx
    .selectFrom('quotes')
    .select(['id', 'rfq_id'])
    .where('status', '=', 'SELECTED')
    .where('settlement_mode', '=', 'promised')
    .where('delivery_deadline_secs', '<', finalChainTimeSecs)
    .orderBy('rfq_id')
    .limit(limit)
    .execute();
}
