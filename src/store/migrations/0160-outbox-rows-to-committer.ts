/**
 * The outbox writer returns the rows it wrote (quote -> taker `quoteUpdate`): the
 * committing node hands them to its sessions without reading them back. `rfq_append_events`
 * (outbox.ts) now returns them; `rfq_write_quotes` (quote-write-function.ts) passes them on when
 * asked (`p_events`), and its one-argument form is dropped. A return type cannot be changed in
 * place, hence the drops; PL/pgSQL callers name these functions at run time, nothing depends on them.
 */
import { type Kysely, sql } from 'kysely';
import { APPEND_EVENTS_SQL } from '../outbox.ts';
import { RFQ_WRITE_QUOTES_SQL } from '../quote-write-function.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop function rfq_append_events(jsonb)`.execute(db);
  await sql.raw(APPEND_EVENTS_SQL).execute(db);
  await sql`drop function rfq_write_quotes(jsonb)`.execute(db);
  await sql.raw(RFQ_WRITE_QUOTES_SQL).execute(db);
}
