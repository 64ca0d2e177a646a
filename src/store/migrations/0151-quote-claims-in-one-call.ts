/**
 * `rfq_write_quotes` reloaded from its one definition (src/store/quote-write-function.ts): it
 * claims every item's (access key, timestamp) in one `rfq_claim_timestamps` call before its loop
 * instead of one call per item (about 40 times cheaper per quote, bench/claim-cost.ts).
 * Same signature and outcomes.
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_WRITE_QUOTES_SQL } from '../quote-write-function.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(RFQ_WRITE_QUOTES_SQL).execute(db);
}
