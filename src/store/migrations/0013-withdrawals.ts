/**
 * Withdrawals and the custody broadcaster's queue. A custody transfer (a withdrawal or a promised
 * payout) is QUEUED, then SIGNED: its nonce allocated and its raw signed transaction and hash
 * persisted in one transaction BEFORE anything is sent, so a crash between signing and sending
 * resends the same bytes (same hash) and never signs a second transaction for the same transfer.
 * `custody_nonces` holds the next nonce per sending address.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table withdrawals (
      id text primary key,
      account_id uuid not null references accounts(id),
      token text not null references tokens(symbol),
      amount numeric(78,0) not null check (amount > 0),
      to_address text not null,
      status text not null,
      tx_hash text,
      failure_reason text,
      idempotency_key text,
      request_fingerprint text not null,
      created_at int8 not null,
      updated_at int8 not null
    );
    create unique index withdrawals_idempotency on withdrawals (account_id, idempotency_key) where idempotency_key is not null;
    create index withdrawals_by_account on withdrawals (account_id, created_at desc, id desc);
    create index withdrawals_by_status on withdrawals (status, created_at desc, id desc);

    create table custody_transfers (
      id uuid primary key,
      purpose text not null check (purpose in ('withdrawal', 'payout')),
      owner_id text not null,
      token text not null references tokens(symbol),
      token_address text not null,
      to_address text not null,
      amount numeric(78,0) not null check (amount > 0),
      status text not null,
      from_address text,
      nonce int8,
      raw_tx text,
      tx_hash text,
      send_attempts int8 not null,
      signed_at int8,
      last_sent_at int8,
      confirmed_block int8,
      last_error text,
      created_at int8 not null,
      updated_at int8 not null,
      unique (purpose, owner_id)
    );
    create unique index custody_transfers_nonce on custody_transfers (from_address, nonce) where nonce is not null;
    create index custody_transfers_open on custody_transfers (status, created_at) where status in ('QUEUED', 'SIGNED', 'SENT');

    create table custody_nonces (
      address text primary key,
      next_nonce int8 not null
    );
  `.execute(db);
}
