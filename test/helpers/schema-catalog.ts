/**
 * What a database's catalogs say of its `public` schema, in a form two databases can be compared
 * by: relations, columns, constraints, indexes, functions (their whole definitions, hashed) and
 * triggers. Names the database chose (oids, dump order) are left out.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';

export interface SchemaCatalog {
  relations: string[];
  columns: string[];
  constraints: string[];
  indexes: string[];
  functions: string[];
  triggers: string[];
}

async function lines(db: Kysely<any>, query: RawBuilder<{ line: string }>): Promise<string[]> {
  return (await query.execute(db)).rows.map((r) => r.line);
}

export async function schemaCatalog(db: Kysely<any>): Promise<SchemaCatalog> {
  return {
    relations: await lines(db, sql<{ line: string }>`
      select relname || ' ' || relkind::text as line from pg_class
      where relnamespace = 'public'::regnamespace order by 1`),
    columns: await lines(db, sql<{ line: string }>`
      select concat_ws(' ', table_name, ordinal_position, column_name, data_type, udt_name, is_nullable, numeric_precision,
                       numeric_scale, column_default, is_identity, identity_generation) as line
      from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`),
    constraints: await lines(db, sql<{ line: string }>`
      select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) as line
      from pg_constraint where connamespace = 'public'::regnamespace order by 1`),
    indexes: await lines(db, sql<{ line: string }>`select indexdef as line from pg_indexes where schemaname = 'public' order by indexname`),
    functions: await lines(db, sql<{ line: string }>`
      select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' || md5(pg_get_functiondef(p.oid)) as line
      from pg_proc p where p.pronamespace = 'public'::regnamespace order by 1`),
    triggers: await lines(db, sql<{ line: string }>`
      select pg_get_triggerdef(t.oid) as line from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where c.relnamespace = 'public'::regnamespace and not t.tgisinternal order by 1`),
  };
}
