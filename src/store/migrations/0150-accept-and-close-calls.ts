/**
 * The accept in two database calls and the auction close's writes in one: `rfq_accept_lock` and `rfq_accept_write`
 * (src/store/accept-functions.ts), and the definitions they share with the other writers, now
 * SQL functions in their one place: the funds lock (`rfq_lock_funds`, ledger.ts) and the batch
 * status writers (`rfq_write_rfq_statuses`, rfq-status.ts; `rfq_write_quote_statuses`,
 * quote-status.ts), and the funds relock of a close batch (`rfq_relock_many`, ledger.ts) and
 * the close's one write (`rfq_close_write`, close-functions.ts). Rows travel back as JSON, read with exact numbers (json-rows.ts).
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
