/**
 * The accept in two database calls and the auction close's writes in one: `rfq_accept_lock` and `rfq_accept_write`
 * (src/store/accept-functions.ts), and the definitions they share with the other writers, now
 * SQL functions in their one place: the funds lock (`rfq_lock_funds`, ledger.ts) and the batch
 * status writers (`rfq_write_rfq_statuses`, rfq-status.ts; `rfq_write_quote_statuses`,
 * quote-status.ts), and the funds relock of a close batch (`rfq_relock_many`, ledger.ts) and
 * the close's one write (`rfq_close_write`, close-functions.ts). Rows travel back as JSON, read with exact numbers (json-rows.ts).
 */
import { type Kysely, sql } from 'kysely';
import { RFQ_ACCEPT_LOCK_SQL, RFQ_ACCEPT_WRITE_SQL } from '../accept-functions.ts';
import { RFQ_LOCK_FUNDS_SQL, RFQ_RELOCK_MANY_SQL } from '../ledger.ts';
import { RFQ_CLOSE_WRITE_SQL } from '../close-functions.ts';
import { RFQ_WRITE_QUOTE_STATUSES_SQL } from '../quote-status.ts';
import { RFQ_WRITE_RFQ_STATUSES_SQL } from '../rfq-status.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const definition of [RFQ_LOCK_FUNDS_SQL, RFQ_WRITE_RFQ_STATUSES_SQL, RFQ_WRITE_QUOTE_STATUSES_SQL, RFQ_ACCEPT_LOCK_SQL, RFQ_ACCEPT_WRITE_SQL, RFQ_RELOCK_MANY_SQL, RFQ_CLOSE_WRITE_SQL]) {
    await sql.raw(definition).execute(db);
  }
}
