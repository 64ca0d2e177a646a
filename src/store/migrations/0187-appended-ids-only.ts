/**
 * `rfq_append_events` returns each event's `[id, seq]` in append order instead of whole rows with
 * their frames (outbox.ts `committedRows`): the writer already holds the frames, and building,
 * sending and parsing them again cost about an eighth of a quote batch's time in PostgreSQL
 * Same signature and return type (jsonb); its callers (`rfq_write_quotes`,
 * `rfq_perp_write`) pass the result through unchanged.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
