/**
 * The quote path's PL/pgSQL functions reloaded from their one definitions with generic plans
 * (src/store/sql/README.md): `rfq_write_quotes`, `rfq_claim_timestamps` and
 * `rfq_append_events` keep one plan per statement and connection instead of planning the replay
 * claim (and what else PostgreSQL judged cheaper to re-plan) again on every call.
 * Same signatures and results.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
