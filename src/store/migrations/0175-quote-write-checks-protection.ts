/**
 * `rfq_write_quotes` reloaded from its one definition (src/store/sql/rfq_write_quotes.sql): it now
 * refuses an item whose maker's protection on the instrument has tripped
 * (`out_refusal = 'protectionTriggered'`). That check was a statement of its own before every
 * quote (a round trip, its parse and plan, about a third of the statements per
 * re-quote); inside the write it is an index probe on a cached plan. Same signature.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
