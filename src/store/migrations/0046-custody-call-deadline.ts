/**
 * A custody call may carry the last second it can still succeed on-chain (`not_after_secs`, unix
 * seconds): an xchange `execute` reverts once `block.timestamp` passes its swap message's
 * expiration (the RFQ's settlementDeadline). The broadcaster never signs such a call, nor a fee
 * bump of it, once the next block is past that second; a queued one ends `EXPIRED` unsigned (the
 * status column is free text: no constraint to widen).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table custody_transfers add column not_after_secs int8`.execute(db);
}
