/**
 * A suspended or inactive maker's open quotes are passed over by every spot selection (found by
 * the SIGKILL test: a close selected the quote of a maker suspended a moment before, and the
 * trade failed at its deadline, since that maker's calls are refused). `rfq_barred_makers`
 * (accept-functions.ts) names them; the accept's, the accept batch's and the close's lock calls
 * answer it.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
