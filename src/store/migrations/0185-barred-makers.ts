/**
 * A suspended or inactive maker's open quotes are passed over by every spot selection (found by
 * the SIGKILL test: a close selected the quote of a maker suspended a moment before, and the
 * trade failed at its deadline, since that maker's calls are refused). `rfq_barred_makers`
 * (accept-functions.ts) names them; the accept's, the accept batch's and the close's lock calls
 * answer it.
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_ACCEPT_LOCK_SQL, RFQ_BARRED_MAKERS_SQL } from '../accept-functions.ts';
import { RFQ_ACCEPT_BATCH_LOCK_SQL } from '../accept-batch-functions.ts';
import { RFQ_CLOSE_LOCK_SQL } from '../close-functions.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const definition of [RFQ_BARRED_MAKERS_SQL, RFQ_ACCEPT_LOCK_SQL, RFQ_ACCEPT_BATCH_LOCK_SQL, RFQ_CLOSE_LOCK_SQL]) await sql.raw(definition).execute(db);
}
