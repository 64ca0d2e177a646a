/**
 * The replay claim in one place: `rfq_claim_timestamps` (src/store/timestamp-claims.ts), and
 * `rfq_write_quotes` loaded again from its one definition (src/store/quote-write-function.ts) so
 * that it claims through it instead of its own insert. Same signature; a key revoked since it
 * was cached is now refused inside the quote write too (`out_refusal = 'keyRevoked'`).
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_WRITE_QUOTES_SQL } from '../quote-write-function.ts';
import { RFQ_CLAIM_TIMESTAMPS_SQL } from '../timestamp-claims.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(RFQ_CLAIM_TIMESTAMPS_SQL).execute(db);
  await sql.raw(RFQ_WRITE_QUOTES_SQL).execute(db);
}
