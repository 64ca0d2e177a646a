/**
 * `rfq_write_quotes` from its one live definition (src/store/sql/rfq_write_quotes.sql), which now
 * writes its frames through `rfq_append_events` (0008) instead of a copy of it. Same signature,
 * same per-item outcomes; the earlier definitions (0004, 0006, 0007, 0015) stay as history. A
 * later change to the function edits that file and adds a migration that loads it again.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
