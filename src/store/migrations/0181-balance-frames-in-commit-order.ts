/**
 * A `balances` frame's rows are read under a per-account lock held to the commit
 * (`rfq_balance_frame_rows`, src/store/balance-frames.ts), so frames in `seq` order show states in
 * commit order even when two transactions change different balance rows of one account at once.
 * The accept's and the close's one-call writes read the balances they answer through it, and
 * write their quote batch through one definition (`rfq_write_quote_batch`, quote-status.ts).
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
