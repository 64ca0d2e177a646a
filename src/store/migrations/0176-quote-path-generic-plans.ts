/**
 * The quote path's PL/pgSQL functions reloaded from their one definitions with `GENERIC_PLANS`
 * (src/store/generic-plans.ts): `rfq_write_quotes`, `rfq_claim_timestamps` and
 * `rfq_append_events` keep one plan per statement and connection instead of planning the replay
 * claim (and what else PostgreSQL judged cheaper to re-plan) again on every call.
 * Same signatures and results.
 */
import { type Kysely, sql } from 'kysely';
import { APPEND_EVENTS_SQL } from '../outbox.ts';
import { RFQ_WRITE_QUOTES_SQL } from '../quote-write-function.ts';
import { RFQ_CLAIM_TIMESTAMPS_SQL } from '../timestamp-claims.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const definition of [RFQ_CLAIM_TIMESTAMPS_SQL, APPEND_EVENTS_SQL, RFQ_WRITE_QUOTES_SQL]) await sql.raw(definition).execute(db);
}
