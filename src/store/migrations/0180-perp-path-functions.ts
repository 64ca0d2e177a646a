/**
 * Two statements of a perp accept's path as PL/pgSQL calls, which keep their plans (as
 * plain statements their parse and plan were most of their cost on PGlite): the execution's lease
 * with its checks' read, `rfq_perp_acquire` (src/store/perp-lease-function.ts), and the accept's
 * record of the execution, `rfq_perp_record_accept` (src/store/perp-accept-function.ts).
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_PERP_ACQUIRE_SQL } from '../perp-lease-function.ts';
import { RFQ_PERP_RECORD_ACCEPT_SQL } from '../perp-accept-function.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const definition of [RFQ_PERP_ACQUIRE_SQL, RFQ_PERP_RECORD_ACCEPT_SQL]) await sql.raw(definition).execute(db);
}
