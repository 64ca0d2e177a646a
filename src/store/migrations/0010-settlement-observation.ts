/**
 * What settlement and maker accountability need: the quote's `quoteHash` (the RfqSettled topic)
 * indexed so the chain follower finds the quote an event names; every failed settlement a
 * winning maker is blamed for; and per maker how often it was suspended (the cooldown doubles)
 * and when the last suspension began (failures before it no longer count).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table quotes add column quote_hash text;
    create unique index quotes_by_quote_hash on quotes (quote_hash) where quote_hash is not null;

    alter table makers add column suspension_count int4 not null default 0;
    alter table makers add column last_suspended_at int8;

    create table maker_failures (
      quote_id text primary key references quotes(id),
      maker_id uuid not null references makers(maker_id),
      rfq_id text not null references rfqs(id),
      reason text not null,
      created_at int8 not null
    );
    create index maker_failures_by_maker on maker_failures (maker_id, created_at);
  `.execute(db);
}
