/** The open-RFQ cap (maxOpenRfqsPerAccount) counts an account's PENDING RFQs on every creation. */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists rfqs_pending_by_account on rfqs (account_id) where status = 'PENDING'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists rfqs_pending_by_account`.execute(db);
}
