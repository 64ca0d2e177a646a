/**
 * Perp execution (DESIGN.md 9.3). One `perp_executions` row per perp accept: the taker's signed
 * order as received (TEXT, not jsonb: the venue hashes the action's key order, jsonb re-orders keys), its (signer, nonce) and cloid, and the execution's state (phase, current
 * winner, cascade). A lease (`lease_owner`, `lease_until`) makes one node at a time drive it
 * without holding a row lock across a venue call; `next_at` is when it is due again.
 * `perp_execution_calls` keeps every venue request and reply (and every decision), for audit.
 *
 * Quotes gain the perp outcome fields: `position` while a cascade backup, and the taker's fill
 * (`perp_filled_size`, `perp_fill_avg_px`) plus the maker's own (`perp_maker_filled_size`) on the
 * winner, as canonical decimal strings the venue reported.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table perp_executions (
      id text primary key,
      rfq_id text not null references rfqs(id),
      quote_id text not null references quotes(id),
      account_id text not null,
      quote_version int4 not null,
      taker_order text not null,
      signer text,
      nonce int8,
      cloid text,
      phase text not null check (phase in ('checking', 'makerSending', 'takerSending', 'resolving', 'cleanup', 'refused', 'ignored', 'done')),
      state jsonb not null,
      taker_sent_at int8,
      taker_reply_at int8,
      failure_code text,
      lease_owner text,
      lease_until int8 not null default 0,
      next_at int8 not null,
      created_at int8 not null,
      updated_at int8 not null
    );
    create index perp_executions_due on perp_executions (next_at) where phase not in ('refused', 'ignored', 'done');
    create index perp_executions_rfq on perp_executions (rfq_id);
    create unique index perp_executions_one_open_per_rfq on perp_executions (rfq_id) where phase in ('checking');
    create table perp_execution_calls (
      id bigserial primary key,
      execution_id text not null references perp_executions(id),
      kind text not null,
      quote_id text,
      request jsonb,
      reply jsonb,
      error text,
      started_at int8 not null,
      ended_at int8
    );
    create index perp_execution_calls_execution on perp_execution_calls (execution_id, id);
    alter table quotes add column position int4;
    alter table quotes add column perp_filled_size text;
    alter table quotes add column perp_fill_avg_px text;
    alter table quotes add column perp_maker_filled_size text;
  `.execute(db);
}
