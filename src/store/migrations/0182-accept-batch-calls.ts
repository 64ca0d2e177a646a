/**
 * Spot accepts group-committed: a batch of accepts locks in one call and writes in one
 * (`rfq_accept_batch_lock`, `rfq_accept_batch_write`, src/store/accept-batch-functions.ts),
 * through the definitions every other writer uses.
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_ACCEPT_BATCH_LOCK_SQL, RFQ_ACCEPT_BATCH_WRITE_SQL } from '../accept-batch-functions.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const definition of [RFQ_ACCEPT_BATCH_LOCK_SQL, RFQ_ACCEPT_BATCH_WRITE_SQL]) await sql.raw(definition).execute(db);
}
