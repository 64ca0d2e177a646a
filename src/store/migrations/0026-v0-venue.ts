/**
 * Legacy `/v0` on the venue (DESIGN.md section 10): single-use login nonces, the omnibus's signed
 * venue actions with one persisted nonce sequence per signer, delegated orders and their fills,
 * venue withdrawals (at most one pending per account) and venue deposits (credited once per hash),
 * and the per-account spot fee rates. Order amounts are in the base token's venue `weiDecimals`,
 * prices x 10^8; withdrawal and deposit amounts are in the ledger's token decimals.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table v0_login_nonces (
      address text not null,
      nonce text not null,
      used_at int8 not null,
      primary key (address, nonce)
    );

    create table venue_signer_nonces (
      signer text primary key,
      last_nonce int8 not null
    );

    create table venue_actions (
      id uuid primary key,
      signer text not null,
      nonce int8 not null,
      kind text not null check (kind in ('order', 'cancel', 'spotSend')),
      owner_id text not null,
      request jsonb not null,
      status text not null check (status in ('SIGNED', 'SENT', 'ACKED', 'REFUSED')),
      response jsonb,
      send_attempts int not null default 0,
      created_at int8 not null,
      updated_at int8 not null,
      unique (signer, nonce)
    );
    create index venue_actions_unsent on venue_actions (created_at) where status = 'SIGNED';
    create index venue_actions_by_owner on venue_actions (owner_id, kind);

    create table v0_orders (
      id text primary key,
      order_uuid uuid not null unique,
      cloid text not null unique,
      account_id uuid not null references accounts(id),
      side text not null check (side in ('buy', 'sell')),
      order_type text not null check (order_type in ('limit', 'market')),
      tif text not null check (tif in ('Ioc', 'Gtc')),
      base_token text not null,
      quote_token text not null,
      asset int not null,
      amount numeric(78,0) not null check (amount > 0),
      price numeric(78,0) not null check (price > 0),
      status text not null check (status in ('pending', 'open', 'filled', 'partially_filled', 'cancelled', 'expired', 'failed')),
      filled_amount numeric(78,0) not null default 0,
      filled_notional numeric(78,0) not null default 0,
      venue_filled_amount numeric(78,0),
      quote_settled numeric(78,0) not null default 0,
      oid int8,
      error_message text,
      cancel_requested boolean not null default false,
      created_at int8 not null,
      updated_at int8 not null
    );
    create index v0_orders_by_account on v0_orders (account_id, created_at desc, id desc);
    create index v0_orders_live on v0_orders (created_at) where status in ('pending', 'open');

    create table v0_fills (
      tid text primary key,
      order_id text not null references v0_orders(id),
      account_id uuid not null references accounts(id),
      price numeric(78,0) not null,
      amount numeric(78,0) not null,
      fee numeric(78,0) not null,
      fee_token text not null,
      fill_time int8 not null,
      movement_id uuid not null,
      created_at int8 not null
    );
    create index v0_fills_by_order on v0_fills (order_id, fill_time);
    create index v0_fills_by_account on v0_fills (account_id, fill_time desc, tid desc);

    create table v0_withdrawals (
      id uuid primary key,
      account_id uuid not null references accounts(id),
      token text not null references tokens(symbol),
      amount numeric(78,0) not null check (amount > 0),
      to_address text not null,
      state text not null check (state in ('pending', 'completed', 'failed')),
      tx_hash text,
      error_message text,
      created_at int8 not null,
      updated_at int8 not null
    );
    create unique index v0_withdrawals_one_pending on v0_withdrawals (account_id) where state = 'pending';
    create index v0_withdrawals_by_account on v0_withdrawals (account_id, created_at desc);

    create table venue_deposits (
      hash text primary key,
      account_id uuid not null references accounts(id),
      from_address text not null,
      token text not null references tokens(symbol),
      amount numeric(78,0) not null,
      movement_id uuid not null,
      created_at int8 not null
    );

    create table v0_fee_rates (
      account_id uuid primary key references accounts(id),
      taker_ppm int not null check (taker_ppm between 0 and 100000),
      maker_ppm int not null check (maker_ppm between 0 and 100000),
      updated_at int8 not null
    );
  `.execute(db);
}
