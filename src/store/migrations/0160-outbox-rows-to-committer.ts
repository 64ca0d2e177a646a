/**
 * The outbox writer returns the rows it wrote (quote -> taker `quoteUpdate`): the
 * committing node hands them to its sessions without reading them back. `rfq_append_events`
 * (outbox.ts) now returns them; `rfq_write_quotes` (sql/rfq_write_quotes.sql) passes them on when
 * asked (`p_events`), and its one-argument form is dropped. A return type cannot be changed in
 * place, hence the drops; PL/pgSQL callers name these functions at run time, nothing depends on them.
 *
 * Its functions are now defined by the SQL function set (src/store/sql/, installed after the
 * migrations): this migration does nothing and stays so that the databases that ran it still
 * match the list.
 */
export async function up(): Promise<void> {
  // The function set is installed after the migrations (src/store/sql-functions.ts).
}
