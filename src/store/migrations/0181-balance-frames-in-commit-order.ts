/**
 * A `balances` frame's rows are read under a per-account lock held to the commit
 * (`rfq_balance_frame_rows`, src/store/balance-frames.ts), so frames in `seq` order show states in
 * commit order even when two transactions change different balance rows of one account at once.
 * The accept's and the close's one-call writes read the balances they answer through it, and
 * write their quote batch through one definition (`rfq_write_quote_batch`, quote-status.ts).
 */
import { type Kysely, sql } from 'kysely';
import { BALANCE_FRAME_ROWS_SQL } from '../balance-frames.ts';
import { RFQ_ACCEPT_WRITE_SQL } from '../accept-functions.ts';
import { RFQ_CLOSE_WRITE_SQL } from '../close-functions.ts';
import { RFQ_WRITE_QUOTE_BATCH_SQL } from '../quote-status.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const definition of [BALANCE_FRAME_ROWS_SQL, RFQ_WRITE_QUOTE_BATCH_SQL, RFQ_ACCEPT_WRITE_SQL, RFQ_CLOSE_WRITE_SQL]) await sql.raw(definition).execute(db);
}
