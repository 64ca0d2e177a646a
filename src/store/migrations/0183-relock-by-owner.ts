/**
 * `rfq_relock_many` reloaded from its one definition (ledger.ts): each owner's live lock is
 * found by one probe of its unique index instead of one join of the batch against the table,
 * whose plan followed the table's statistics (on a locks table grown since its last
 * ANALYZE, a close of 100 RFQs compared every live lock with every owner, 30 ms). Same signature
 * and results.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
