/**
 * The rows behind maker accountability (src/services/settlement/maker-failures.ts): one failure a
 * quote (migrations 0010, 0199), the count in the window (indexed by maker and time), and the
 * maker's suspension state, whose row serialises the failures of one maker.
 */
import { sql } from 'kysely';
import type { Tx } from './transaction.ts';

export interface MakerFailureRow {
  quoteId: string;
  makerId: string;
  rfqId: string;
  reason: string;
  at: number;
  delayMs: number | null;
}

/** Records the quote's failure once; false when it was already recorded. */
export async function insertMakerFailure(tx: Tx, failure: MakerFailureRow): Promise<boolean> {
  const inserted = await tx
    .insertInto('maker_failures')
    .values({ quote_id: failure.quoteId, maker_id: failure.makerId, rfq_id: failure.rfqId, reason: failure.reason, created_at: failure.at, delay_ms: failure.delayMs })
    .onConflict((oc) => oc.column('quote_id').doNothing())
    .returning('quote_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The maker's suspension count and last suspension, its row locked until the transaction ends. */
export async function lockMakerSuspensionState(tx: Tx, makerId: string): Promise<{ suspension_count: number; last_suspended_at: number | null }> {
  return tx.selectFrom('makers').select(['suspension_count', 'last_suspended_at']).where('maker_id', '=', makerId).forUpdate().executeTakeFirstOrThrow();
}

/** How many failures the maker has recorded after `since` (ms). */
export async function countMakerFailuresSince(tx: Tx, makerId: string, since: number): Promise<number> {
  const counted = await tx.selectFrom('maker_failures').select(sql<number>`count(*)::int`.as('n')).where('maker_id', '=', makerId).where('created_at', '>', since).executeTakeFirstOrThrow();
  return counted.n;
}

/** Suspends the maker until `until`, counting the suspension (the next one lasts twice as long). */
export async function suspendMaker(tx: Tx, makerId: string, suspension: { until: number; count: number; at: number }): Promise<void> {
  await tx
    .updateTable('makers')
    .set({ suspended_until: suspension.until, last_suspended_at: suspension.at, suspension_count: suspension.count, updated_at: suspension.at })
    .where('maker_id', '=', makerId)
    .execute();
}

/** Lifts the maker's suspension at once; the count is kept. */
export async function liftMakerSuspension(tx: Tx, makerId: string, at: number): Promise<void> {
  await tx.updateTable('makers').set({ suspended_until: null, updated_at: at }).where('maker_id', '=', makerId).execute();
}
