/**
 * The operator lists every account's RFQs newest first (GET /admin/v1/rfqs), optionally by status
 * or instrument; without these indexes each console poll would sort the whole table.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index rfqs_newest on rfqs (created_at desc, id desc);
    create index rfqs_by_status on rfqs (status, created_at desc, id desc);
    create index rfqs_by_instrument on rfqs (instrument_id, created_at desc, id desc);
    create index deposits_newest on deposits (created_at desc, id desc);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index deposits_newest;
    drop index rfqs_by_instrument;
    drop index rfqs_by_status;
    drop index rfqs_newest;
  `.execute(db);
}
