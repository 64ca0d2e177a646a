/**
 * The replay claim in one place: `rfq_claim_timestamps` (src/store/timestamp-claims.ts), and
 * `rfq_write_quotes` loaded again from its one definition (src/store/sql/rfq_write_quotes.sql) so
 * that it claims through it instead of its own insert. Same signature; a key revoked since it
 * was cached is now refused inside the quote write too (`out_refusal = 'keyRevoked'`).
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
