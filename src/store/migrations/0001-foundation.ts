/**
 * Foundation schema: accounts and credentials, reference data, the double-entry ledger with its
 * balance projection and locks, the RFQ/quote book and the event outbox.
 * Amounts are NUMERIC(78,0) smallest units; instants are INT8 unix milliseconds unless the column
 * name ends in `_secs` (the spec's `...Deadline` fields are seconds).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table accounts (
      id uuid primary key,
      address text not null unique,
      created_at int8 not null
    );

    create table auth_challenges (
      nonce uuid primary key,
      created_at int8 not null,
      expires_at int8 not null,
      used_at int8
    );

    create table api_keys (
      access_key text primary key,
      account_id uuid not null references accounts(id),
      secret_enc text not null,
      maker_scoped boolean not null,
      created_at int8 not null,
      expires_at int8 not null,
      revoked_at int8
    );
    create index api_keys_by_account on api_keys (account_id, created_at desc);

    create table request_timestamps (
      access_key text not null,
      signed_at int8 not null,
      primary key (access_key, signed_at)
    );

    create table tokens (
      symbol text primary key,
      decimals int not null check (decimals between 0 and 36),
      address text,
      updated_at int8 not null
    );

    create table instruments (
      instrument_id text primary key,
      base text not null references tokens(symbol),
      quote text not null references tokens(symbol),
      type text not null check (type in ('SPOT', 'PERP')),
      taker_fee_tenth_bp int not null check (taker_fee_tenth_bp between 0 and 100000),
      min_quote_notional numeric(78,0) check (min_quote_notional >= 0),
      enabled boolean not null,
      updated_at int8 not null
    );

    create table makers (
      maker_id uuid primary key,
      account_id uuid not null unique references accounts(id),
      active boolean not null,
      pairs jsonb not null,
      settlement_modes jsonb not null,
      spender text,
      adapter_signer text,
      suspended_until int8,
      created_at int8 not null,
      updated_at int8 not null
    );

    create table settings (
      key text primary key,
      value jsonb not null
    );

    create table balances (
      account_id uuid not null references accounts(id),
      token text not null references tokens(symbol),
      rail text not null,
      available numeric(78,0) not null check (available >= 0),
      locked numeric(78,0) not null check (locked >= 0),
      primary key (account_id, token, rail)
    );

    create table ledger_movements (
      movement_id uuid primary key,
      kind text not null,
      reference text,
      memo text,
      created_at int8 not null
    );

    create table ledger_postings (
      posting_id uuid primary key,
      movement_id uuid not null references ledger_movements(movement_id),
      book text not null,
      account_id uuid references accounts(id),
      token text not null references tokens(symbol),
      rail text not null,
      delta numeric(78,0) not null,
      source text not null,
      created_at int8 not null
    );
    create index ledger_postings_by_account on ledger_postings (account_id, created_at desc, posting_id desc);
    create index ledger_postings_by_movement on ledger_postings (movement_id);

    create table locks (
      lock_id uuid primary key,
      account_id uuid not null references accounts(id),
      token text not null references tokens(symbol),
      rail text not null,
      amount numeric(78,0) not null check (amount > 0),
      owner_kind text not null,
      owner_id text not null,
      created_at int8 not null,
      released_at int8,
      release_reason text
    );
    create unique index locks_live_owner on locks (owner_kind, owner_id) where released_at is null;
    create index locks_live_by_account on locks (account_id, token, rail) where released_at is null;

    create table rfqs (
      id text primary key,
      account_id uuid not null references accounts(id),
      instrument_id text not null references instruments(instrument_id),
      side text not null check (side in ('BUY', 'SELL')),
      base_qty numeric(78,0) not null check (base_qty > 0),
      quote_limit numeric(78,0) check (quote_limit > 0),
      taker_fee_tenth_bp int not null,
      auto_accept boolean not null,
      status text not null,
      created_at int8 not null,
      auction_ends_at int8 not null,
      settlement_deadline_secs int8 not null,
      quoted_at int8,
      settled_at int8,
      executed_pay_amount numeric(78,0),
      executed_recv_amount numeric(78,0),
      taker_fee numeric(78,0),
      tx_hash text,
      failure_code text,
      failure_reason text,
      selected_quote_id text,
      idempotency_key text,
      request_fingerprint text not null,
      updated_at int8 not null
    );
    create unique index rfqs_idempotency on rfqs (account_id, idempotency_key) where idempotency_key is not null;
    create index rfqs_by_account on rfqs (account_id, created_at desc, id desc);
    create index rfqs_pending_by_deadline on rfqs (auction_ends_at) where status = 'PENDING';
    create index rfqs_quoted_by_deadline on rfqs (settlement_deadline_secs) where status = 'QUOTED';

    create table quotes (
      id text primary key,
      rfq_id text not null references rfqs(id),
      maker_id uuid not null references makers(maker_id),
      maker_account_id uuid not null references accounts(id),
      version int8 not null,
      status text not null,
      maker_pays_token text not null,
      maker_pays_amount numeric(78,0) not null check (maker_pays_amount > 0),
      maker_receives_token text not null,
      maker_receives_amount numeric(78,0) not null check (maker_receives_amount > 0),
      taker_fee numeric(78,0) not null,
      taker_total numeric(78,0) not null,
      received_at int8 not null,
      acceptable_for_ms int8,
      settlement_mode text not null,
      settlement_deadline_secs int8,
      permit_signature text,
      spender text,
      delivery_deadline_secs int8,
      window_starts_at int8,
      window_ends_at int8,
      xchange jsonb,
      settled_at int8,
      tx_hash text,
      created_at int8 not null,
      updated_at int8 not null,
      unique (rfq_id, maker_id)
    );
    create index quotes_by_rfq on quotes (rfq_id, received_at);
    create index quotes_by_maker on quotes (maker_id, created_at desc, id desc);

    create table event_seqs (
      account_id uuid not null,
      topic text not null,
      last_seq int8 not null,
      primary key (account_id, topic)
    );

    create table outbox (
      id bigserial primary key,
      account_id uuid,
      topic text not null,
      seq int8,
      frame jsonb not null,
      created_at int8 not null
    );
    create index outbox_by_account_topic on outbox (account_id, topic, seq);
    create index outbox_by_time on outbox (created_at);

    create table rate_limit_windows (
      bucket text not null,
      window_start int8 not null,
      hits int not null,
      primary key (bucket, window_start)
    );
  `.execute(db);
}
