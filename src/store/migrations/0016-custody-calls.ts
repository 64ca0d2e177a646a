/**
 * Every transaction custody sends goes through the custody broadcaster, so its nonce comes from
 * one place (`custody_nonces`). Besides ERC-20 transfers (withdrawal, payout) the queue now holds
 * contract calls: `xchange` (custody executes a selected bundle on the adapter; owner = quote id)
 * and `approval` (custody approves the adapter for a token; owner = token address; moves nothing,
 * so amount 0 is allowed). A call row carries its calldata and a gas limit estimated when it was
 * enqueued; it is sent to `to_address`.
 *
 * A call may be attempted again after it reverted or was lost (xchange retries until the RFQ's
 * settlement deadline), so for calls only one OPEN row per owner is unique; transfers keep one row
 * per owner ever.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table custody_transfers drop constraint custody_transfers_purpose_check;
    alter table custody_transfers add constraint custody_transfers_purpose_check check (purpose in ('withdrawal', 'payout', 'xchange', 'approval'));
    alter table custody_transfers drop constraint custody_transfers_amount_check;
    alter table custody_transfers add constraint custody_transfers_amount_check check (amount > 0 or purpose = 'approval');
    alter table custody_transfers add column call_data text;
    alter table custody_transfers add column gas int8;
    alter table custody_transfers drop constraint custody_transfers_purpose_owner_id_key;
    create unique index custody_transfers_transfer_owner on custody_transfers (purpose, owner_id) where purpose in ('withdrawal', 'payout');
    create unique index custody_transfers_open_call on custody_transfers (purpose, owner_id) where purpose in ('xchange', 'approval') and status in ('QUEUED', 'SIGNED', 'SENT');
  `.execute(db);
}
