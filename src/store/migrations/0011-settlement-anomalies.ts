/**
 * Settlement events the service could not apply normally, kept for the operator: an RfqSettled
 * for a quote already FAILED (custody paid, the taker's lock was released: booked to the
 * `suspense` book), or one whose emitter, maker or legs do not match the quote it names
 * (ignored). One row per log.
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table settlement_anomalies (
      tx_hash text not null,
      log_index int4 not null,
      kind text not null,
      quote_id text,
      rfq_id text,
      detail jsonb not null,
      created_at int8 not null,
      primary key (tx_hash, log_index)
    );
    create index settlement_anomalies_by_time on settlement_anomalies (created_at desc);
  `.execute(db);
}
