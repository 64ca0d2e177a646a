/**
 * `rfq_write_quotes` reloaded from its one definition (src/store/quote-write-function.ts): it now
 * refuses an item whose maker's protection on the instrument has tripped
 * (`out_refusal = 'protectionTriggered'`). That check was a statement of its own before every
 * quote (a round trip, its parse and plan, about a third of the statements per
 * re-quote); inside the write it is an index probe on a cached plan. Same signature.
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_WRITE_QUOTES_SQL } from '../quote-write-function.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(RFQ_WRITE_QUOTES_SQL).execute(db);
}
