/**
 * The operator lists perp executions newest first (GET /admin/v1/perp/executions), optionally by
 * phase; without this index each console poll would sort the whole table.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index perp_executions_newest on perp_executions (created_at desc, id desc);
    create index perp_executions_by_phase on perp_executions (phase, created_at desc, id desc);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index perp_executions_by_phase;
    drop index perp_executions_newest;
  `.execute(db);
}
