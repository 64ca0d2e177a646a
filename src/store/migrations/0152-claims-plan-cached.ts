/**
 * `rfq_claim_timestamps` reloaded from its one definition (src/store/timestamp-claims.ts), now
 * PL/pgSQL: a `language sql` function is parsed and planned again on every call, a PL/pgSQL one
 * keeps its plan per connection (the claim runs on every authenticated request).
 * Same signature and outcomes.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
