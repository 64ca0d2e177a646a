/**
 * The auction close's lock reads as one call: `rfq_close_lock` (close-functions.ts)
 * takes the due RFQs, their quotes and the makers' protections that three statements took.
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_CLOSE_LOCK_SQL } from '../close-functions.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(RFQ_CLOSE_LOCK_SQL).execute(db);
}
