/**
 * Promised-mode deliveries: the maker's transfer into custody that settled a quote, one per quote
 * and one per (txHash, logIndex), so the same transfer can neither settle twice nor count as a
 * deposit. The payout of the maker's leg is a custody transfer (purpose `payout`, owner the quote).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table promised_deliveries (
      quote_id text primary key references quotes(id),
      rfq_id text not null references rfqs(id),
      tx_hash text not null,
      log_index int8 not null,
      block_number int8 not null,
      block_timestamp_secs int8 not null,
      created_at int8 not null,
      unique (tx_hash, log_index)
    );
    create index quotes_promised_open on quotes (delivery_deadline_secs) where status = 'SELECTED' and settlement_mode = 'promised';
  `.execute(db);
}
