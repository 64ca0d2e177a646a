/**
 * A chain log whose handler keeps failing is quarantined as a settlement anomaly (kind
 * `HANDLER_FAILED`, the handler, its error and the log in `detail`) so the follower moves on.
 * Anomalies can now be resolved by the operator: `resolved_at` and `resolution` (`HANDLED`: dealt
 * with by hand; `REPLAYED`: the handler ran again on the stored log and succeeded).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table settlement_anomalies add column resolved_at int8;
    alter table settlement_anomalies add column resolution text;
    create index settlement_anomalies_open on settlement_anomalies (kind) where resolved_at is null;
  `.execute(db);
}
