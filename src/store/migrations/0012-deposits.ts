/**
 * Deposits: transfers of a listed token into custody, one row per (txHash, logIndex). A row is
 * first written PENDING by the head scanner (not final yet) and completed by the chain follower
 * once final; `account_id` is null for a transfer from an address with no account (unattributed).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table deposits (
      id text primary key,
      account_id uuid references accounts(id),
      from_address text not null,
      token text not null references tokens(symbol),
      amount numeric(78,0) not null check (amount > 0),
      status text not null,
      tx_hash text not null,
      log_index int8 not null,
      block_number int8 not null,
      movement_id uuid,
      created_at int8 not null,
      updated_at int8 not null,
      unique (tx_hash, log_index)
    );
    create index deposits_by_account on deposits (account_id, created_at desc, id desc);
    create index deposits_unattributed on deposits (created_at desc, id desc) where account_id is null;
    create index deposits_pending_by_block on deposits (block_number) where status = 'PENDING';
  `.execute(db);
}
