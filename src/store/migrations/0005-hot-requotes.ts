/**
 * Lets a re-quote update its row in place (a HOT update: no index entries rewritten). The
 * (rfq_id, received_at) index made every re-quote touch all four quote indexes because it indexes
 * the restamped `receivedAt`; lookups by RFQ are served by the unique (rfq_id, maker_id) index.
 * Free space per page (fillfactor) keeps the new row version on the same page.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists quotes_by_rfq;
    alter table quotes set (fillfactor = 70);
    alter table event_seqs set (fillfactor = 50);
    alter table rfqs set (fillfactor = 80);
  `.execute(db);
}
