/**
 * The business metrics (runtime/business-metrics.ts) read maker failures in the order they were
 * recorded, across makers: an index on the moment, the quote breaking ties.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index maker_failures_by_time on maker_failures (created_at, quote_id);`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index maker_failures_by_time;`.execute(db);
}
