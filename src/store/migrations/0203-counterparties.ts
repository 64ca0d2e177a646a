/**
 * Counterparty choice (src/domain/rfq/counterparties.ts): a maker's public alias (unique without
 * regard to case) and the takers it denies, by account id; an RFQ's audience as fixed at creation
 * (`audience_only` null is the default broadcast). Account ids are kept as text so one array type
 * serves both stores' drivers.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table makers add column alias text;`.execute(db);
  await sql`create unique index makers_alias_key on makers (lower(alias)) where alias is not null;`.execute(db);
  await sql`alter table makers add column denied_takers text[] not null default '{}';`.execute(db);
  await sql`alter table rfqs add column audience_only text[];`.execute(db);
  await sql`alter table rfqs add column audience_except text[] not null default '{}';`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table rfqs drop column audience_except;`.execute(db);
  await sql`alter table rfqs drop column audience_only;`.execute(db);
  await sql`alter table makers drop column denied_takers;`.execute(db);
  await sql`drop index makers_alias_key;`.execute(db);
  await sql`alter table makers drop column alias;`.execute(db);
}
