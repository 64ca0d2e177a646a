/**
 * A perp execution's transition in two database calls: `rfq_perp_lock` and
 * `rfq_perp_write` (src/store/perp-commit-functions.ts), and the protection lock both accepts now
 * share (`rfq_locked_protections`, accept-functions.ts; `rfq_accept_lock` is loaded again to use it).
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
