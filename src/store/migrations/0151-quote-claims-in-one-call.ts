/**
 * `rfq_write_quotes` reloaded from its one definition (src/store/sql/rfq_write_quotes.sql): it
 * claims every item's (access key, timestamp) in one `rfq_claim_timestamps` call before its loop
 * instead of one call per item (about 40 times cheaper per quote, bench/claim-cost.ts).
 * Same signature and outcomes.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
