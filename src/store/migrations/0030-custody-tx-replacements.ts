/**
 * Every signed transaction of a custody transfer, so a stuck one can be replaced at the same nonce
 * (a fee bump, or the operator's zero-value cancel) and any of them may be the one mined:
 * `custody_tx_attempts` holds each signed transaction (attempt 0 = the original), persisted before
 * it is sent. `custody_transfers.raw_tx`/`tx_hash` stay the latest attempt (the one re-sent);
 * once one is mined the transfer's `tx_hash` is the mined one.
 *
 * `cancel_requested_at`: the operator asked for a cancel (the broadcaster signs it on its next
 * round). `escalated_at`: the transfer outlived the broadcaster's bounds and its owner was handed
 * to the operator (a withdrawal becomes UNRESOLVED); the broadcaster keeps bumping and watching it.
 * A transfer whose cancel was mined ends CANCELLED: its nonce is consumed and nothing was paid.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table custody_tx_attempts (
      transfer_id uuid not null references custody_transfers(id),
      attempt int4 not null,
      kind text not null check (kind in ('original', 'replacement', 'cancel')),
      nonce int8 not null,
      raw_tx text not null,
      tx_hash text not null unique,
      signed_at int8 not null,
      primary key (transfer_id, attempt)
    );
    insert into custody_tx_attempts (transfer_id, attempt, kind, nonce, raw_tx, tx_hash, signed_at)
      select id, 0, 'original', nonce, raw_tx, tx_hash, coalesce(signed_at, updated_at) from custody_transfers
      where raw_tx is not null and nonce is not null and tx_hash is not null;
    alter table custody_transfers add column cancel_requested_at int8;
    alter table custody_transfers add column escalated_at int8;
  `.execute(db);
}
