/**
 * The SQL function sets installed on this database (src/store/sql-functions.ts), one row per
 * install in install order: the set's checksum, the names of its functions (so the next install
 * drops those it no longer has) and when it was installed (UnixMillis).
 */
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sql_function_sets (
      id int8 generated always as identity primary key,
      checksum text not null,
      functions text[] not null,
      installed_at int8 not null
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table sql_function_sets;`.execute(db);
}
