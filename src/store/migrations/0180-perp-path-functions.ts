/**
 * Two statements of a perp accept's path as PL/pgSQL calls, which keep their plans (as
 * plain statements their parse and plan were most of their cost on PGlite): the execution's lease
 * with its checks' read, `rfq_perp_acquire` (src/store/perp-lease-function.ts), and the accept's
 * record of the execution, `rfq_perp_record_accept` (src/store/perp-accept-function.ts).
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
