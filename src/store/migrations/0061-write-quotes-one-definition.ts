/**
 * `rfq_write_quotes` from its one live definition (src/store/quote-write-function.ts), which now
 * writes its frames through `rfq_append_events` (0008) instead of a copy of it. Same signature,
 * same per-item outcomes; the earlier definitions (0004, 0006, 0007, 0015) stay as history. A
 * later change to the function edits that file and adds a migration that loads it again.
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_WRITE_QUOTES_SQL } from '../quote-write-function.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(RFQ_WRITE_QUOTES_SQL).execute(db);
}
