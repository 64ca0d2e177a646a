/**
 * `rfq_append_events` returns each event's `[id, seq]` in append order instead of whole rows with
 * their frames (outbox.ts `committedRows`): the writer already holds the frames, and building,
 * sending and parsing them again cost about an eighth of a quote batch's time in PostgreSQL
 * Same signature and return type (jsonb); its callers (`rfq_write_quotes`,
 * `rfq_perp_write`) pass the result through unchanged.
 */
import { type Kysely, sql } from 'kysely';
import { APPEND_EVENTS_SQL } from '../outbox.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(APPEND_EVENTS_SQL).execute(db);
}
