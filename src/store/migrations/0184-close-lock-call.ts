/**
 * The auction close's lock reads as one call: `rfq_close_lock` (close-functions.ts)
 * takes the due RFQs, their quotes and the makers' protections that three statements took.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
