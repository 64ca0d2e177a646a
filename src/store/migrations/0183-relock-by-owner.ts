/**
 * `rfq_relock_many` reloaded from its one definition (ledger.ts): each owner's live lock is
 * found by one probe of its unique index instead of one join of the batch against the table,
 * whose plan followed the table's statistics (on a locks table grown since its last
 * ANALYZE, a close of 100 RFQs compared every live lock with every owner, 30 ms). Same signature
 * and results.
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_RELOCK_MANY_SQL } from '../ledger.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(RFQ_RELOCK_MANY_SQL).execute(db);
}
