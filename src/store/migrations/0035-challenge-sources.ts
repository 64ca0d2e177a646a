/**
 * Sign-in challenges carry the source address that asked for them, so live ones can be capped
 * per source; expired ones are pruned by expiry.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table auth_challenges add column if not exists source text`.execute(db);
  await sql`create index if not exists auth_challenges_live_by_source on auth_challenges (source, expires_at) where used_at is null`.execute(db);
  await sql`create index if not exists auth_challenges_by_expiry on auth_challenges (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists auth_challenges_by_expiry`.execute(db);
  await sql`drop index if exists auth_challenges_live_by_source`.execute(db);
  await sql`alter table auth_challenges drop column if exists source`.execute(db);
}
