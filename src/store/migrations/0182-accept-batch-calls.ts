/**
 * Spot accepts group-committed: a batch of accepts locks in one call and writes in one
 * (`rfq_accept_batch_lock`, `rfq_accept_batch_write`, src/store/accept-batch-functions.ts),
 * through the definitions every other writer uses.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
