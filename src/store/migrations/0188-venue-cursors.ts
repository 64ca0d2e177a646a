/**
 * Venue cursors (src/store/venue-cursor.ts): how far the `/v0` omnibus worker has read its
 * account's ledger updates at the venue, kept across restarts so a restart catches up from there
 * instead of from the start of the account's history.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table venue_cursors (
      name text primary key,
      position_ms int8 not null,
      updated_at int8 not null
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table venue_cursors;`.execute(db);
}
