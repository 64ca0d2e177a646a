/**
 * The SQL function set: every function of the store's, one per file in `./sql/` (the order in
 * `./sql/manifest.ts`), installed after the migrations on every start. Migrations change tables and
 * data only, so a function's text is the code's of today and a database of any age ends with the
 * same functions as a fresh one.
 *
 * An install is one transaction under a transaction-scoped advisory lock (concurrent starters on
 * one PostgreSQL install once). It drops every function named in this set or in the last one
 * installed (a changed return type or argument list cannot be replaced in place, and a function
 * gone from the set must go from the database), creates the set's functions and records the set's
 * checksum. A node whose set is the installed one does nothing.
 *
 * Two versions on one database never fight: a set, once replaced by another, is not installed
 * again. A node whose set was replaced (an older version, started again during or after an
 * upgrade) refuses to start instead of putting its functions back under the newer nodes, as
 * Kysely's migrator refuses a node that lacks a migration the database has run. A roll back on
 * purpose deletes the older set's rows: that set is then new to the database and is installed.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import { SQL_FUNCTIONS } from './sql/manifest.ts';

const SQL_FOLDER = new URL('./sql/', import.meta.url);

export interface SqlFunctionSet {
  /** Function names, in install order. */
  readonly names: readonly string[];
  /** Each function's `create or replace function` text, in the order of `names`. */
  readonly definitions: readonly string[];
  /** sha256 (hex) over the names and texts in install order. */
  readonly checksum: string;
}

/** `installed`: this node installed its set now; `current`: its set was already installed. */
export type SqlFunctionInstall = 'installed' | 'current';

/** The `create or replace function` text of one function of the set. */
export function sqlFunctionText(name: (typeof SQL_FUNCTIONS)[number]): string {
  return readFileSync(new URL(`${name}.sql`, SQL_FOLDER), 'utf8');
}

/** Reads the set from `./sql/`, in the manifest's order. */
export function readSqlFunctionSet(): SqlFunctionSet {
  const definitions = SQL_FUNCTIONS.map(sqlFunctionText);
  const hash = createHash('sha256');
  SQL_FUNCTIONS.forEach((name, i) => hash.update(`${name}\n${definitions[i]}\n`));
  return { names: SQL_FUNCTIONS, definitions, checksum: hash.digest('hex') };
}

/**
 * Installs `set` unless it is the database's current set; throws (and changes nothing) when the
 * database has replaced `set` with another since it was installed.
 */
export async function installSqlFunctions<T>(db: Kysely<T>, set: SqlFunctionSet = readSqlFunctionSet()): Promise<SqlFunctionInstall> {
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(hashtext('sql_function_sets'))`.execute(tx);
    const latest = (await sql<{ id: string | number; checksum: string }>`
      select id, checksum from sql_function_sets order by id desc limit 1`.execute(tx)).rows[0];
    if (latest?.checksum === set.checksum) return 'current';
    const replaced = (await sql<{ id: string | number }>`
      select id from sql_function_sets where checksum = ${set.checksum} order by id desc limit 1`.execute(tx)).rows[0];
    if (replaced) {
      throw new Error(
        `this node's SQL function set ${set.checksum} (install ${replaced.id}) was replaced by ${latest!.checksum} (install ${latest!.id}): ` +
          `a newer version runs on this database; start that version, or roll back to this one on purpose: delete from sql_function_sets where checksum = '${set.checksum}'`,
      );
    }
    const stale = await sql<{ signature: string }>`
      select p.oid::regprocedure::text as signature
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = 'public' and p.prokind = 'f'
        and (p.proname = any(${[...set.names]}::text[])
             or p.proname = any(coalesce((select functions from sql_function_sets order by id desc limit 1), '{}')))`.execute(tx);
    for (const { signature } of stale.rows) await sql`drop function ${sql.raw(signature)}`.execute(tx);
    for (const definition of set.definitions) await sql.raw(definition).execute(tx);
    await sql`
      insert into sql_function_sets (checksum, functions, installed_at)
      values (${set.checksum}, ${[...set.names]}::text[], (extract(epoch from clock_timestamp()) * 1000)::int8)`.execute(tx);
    return 'installed';
  });
}
