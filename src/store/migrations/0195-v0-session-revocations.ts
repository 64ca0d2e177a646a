/**
 * `/v0` sessions the operator ended (`POST /admin/v1/v0/sessions/revoke`): every JWT of an
 * identity issued at or before `revoked_at` is refused from then on (services/v0/session.ts).
 * One row per identity, moved forward by each revocation.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table v0_session_revocations (
      identity text primary key,
      revoked_at int8 not null
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table v0_session_revocations;`.execute(db);
}
