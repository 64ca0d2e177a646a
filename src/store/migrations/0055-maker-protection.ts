/**
 * Maker protection (DESIGN.md section 11).
 *
 * - `maker_protections`: one market-maker-protection setting per (maker, instrument); the row is
 *   also the lock every selection of that maker's quotes on that instrument takes, so the counting
 *   of selections within the window is exact however many selections run at once.
 * - `maker_protection_selections`: the maker's selections counted by that setting (only while one
 *   exists), for the rolling window.
 * - `ws_nodes`: each node's heartbeat; a node whose heartbeat is older than the timeout is dead.
 * - `maker_sessions`: live WebSocket sessions of maker credentials, by node, each saying whether it
 *   holds cancel on disconnect; a row is ended (`ended_at`) when the session closes or its node
 *   dies, and removed once its maker's quotes were cancelled (or, without the flag or with another
 *   live flagged session of that maker, at once).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table maker_protections (
      maker_account_id uuid not null references accounts(id),
      instrument_id text not null,
      window_ms int8 not null check (window_ms > 0),
      max_selected_quotes int4 check (max_selected_quotes > 0),
      max_selected_notional numeric(78,0) check (max_selected_notional > 0),
      triggered_at int8,
      trigger_reason text,
      updated_at int8 not null,
      primary key (maker_account_id, instrument_id),
      check (max_selected_quotes is not null or max_selected_notional is not null)
    );
    create index maker_protections_triggered on maker_protections (triggered_at) where triggered_at is not null;

    create table maker_protection_selections (
      quote_id text primary key,
      maker_account_id uuid not null,
      instrument_id text not null,
      notional numeric(78,0) not null,
      selected_at int8 not null
    );
    create index maker_protection_selections_window on maker_protection_selections (maker_account_id, instrument_id, selected_at);

    create table ws_nodes (
      node_id text primary key,
      heartbeat_at int8 not null
    );

    create table maker_sessions (
      session_id text primary key,
      node_id text not null,
      maker_account_id uuid not null references accounts(id),
      cancel_on_disconnect boolean not null,
      opened_at int8 not null,
      ended_at int8
    );
    create index maker_sessions_by_maker on maker_sessions (maker_account_id);
    create index maker_sessions_by_node on maker_sessions (node_id) where ended_at is null;
    create index maker_sessions_ended on maker_sessions (ended_at) where ended_at is not null;

    -- The protection sweeps look up a maker's open quotes by account.
    create index quotes_submitted_by_maker_account on quotes (maker_account_id) where status = 'SUBMITTED';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index quotes_submitted_by_maker_account;
    drop table maker_sessions;
    drop table ws_nodes;
    drop table maker_protection_selections;
    drop table maker_protections;
  `.execute(db);
}
