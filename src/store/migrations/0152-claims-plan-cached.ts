/**
 * `rfq_claim_timestamps` reloaded from its one definition (src/store/timestamp-claims.ts), now
 * PL/pgSQL: a `language sql` function is parsed and planned again on every call, a PL/pgSQL one
 * keeps its plan per connection (the claim runs on every authenticated request).
 * Same signature and outcomes.
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_CLAIM_TIMESTAMPS_SQL } from '../timestamp-claims.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(RFQ_CLAIM_TIMESTAMPS_SQL).execute(db);
}
