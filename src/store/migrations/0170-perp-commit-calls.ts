/**
 * A perp execution's transition in two database calls: `rfq_perp_lock` and
 * `rfq_perp_write` (src/store/perp-commit-functions.ts), and the protection lock both accepts now
 * share (`rfq_locked_protections`, accept-functions.ts; `rfq_accept_lock` is loaded again to use it).
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_ACCEPT_LOCK_SQL, RFQ_LOCKED_PROTECTIONS_SQL } from '../accept-functions.ts';
import { RFQ_PERP_LOCK_SQL, RFQ_PERP_WRITE_SQL } from '../perp-commit-functions.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const definition of [RFQ_LOCKED_PROTECTIONS_SQL, RFQ_ACCEPT_LOCK_SQL, RFQ_PERP_LOCK_SQL, RFQ_PERP_WRITE_SQL]) {
    await sql.raw(definition).execute(db);
  }
}
