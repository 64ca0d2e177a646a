/**
 * Late relays (DESIGN.md section 15) are recorded as maker failures with reason `lateRelay`, so
 * they count toward suspension like a failed settlement; `delay_ms` keeps how long after the
 * selection the relay came (null for the other reasons).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table maker_failures add column delay_ms int8;`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table maker_failures drop column delay_ms;`.execute(db);
}
