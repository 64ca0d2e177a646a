/**
 * The SQL function set (src/store/sql-functions.ts): the manifest names exactly the files of
 * src/store/sql/, each file defines the one function it is named after, a migrated database has
 * exactly the set's functions, and installs follow their rule: the current set is left alone, a
 * new set replaces the old one (dropping what it no longer has), and a replaced set is refused.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely } from 'kysely';
import { SQL_FUNCTIONS } from '../../src/store/sql/manifest.ts';
import { installSqlFunctions, readSqlFunctionSet, type SqlFunctionSet } from '../../src/store/sql-functions.ts';
import { backends, useMigratedStore } from '../helpers/backends.ts';

const SQL_FOLDER = fileURLToPath(new URL('../../src/store/sql/', import.meta.url));

async function publicFunctions(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ proname: string }>`
    select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = 'public' order by p.proname`.execute(db);
  return rows.map((r) => r.proname);
}

async function installedChecksums(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ checksum: string }>`select checksum from sql_function_sets order by id`.execute(db);
  return rows.map((r) => r.checksum);
}

/** `set` with its last function left out and one definition's text changed: another set. */
function shrunk(set: SqlFunctionSet): SqlFunctionSet {
  const names = set.names.slice(0, -1);
  const definitions = set.definitions.slice(0, -1).map((d, i) => (i === 0 ? `-- changed\n${d}` : d));
  return { names, definitions, checksum: `${set.checksum}-shrunk` };
}

describe('SQL function files', () => {
  it('the manifest names each .sql file once, and each file defines the function it is named after', () => {
    const files = readdirSync(SQL_FOLDER).filter((f) => f.endsWith('.sql')).map((f) => f.slice(0, -'.sql'.length));
    assert.deepEqual([...SQL_FUNCTIONS].sort(), files.sort());
    assert.equal(new Set(SQL_FUNCTIONS).size, SQL_FUNCTIONS.length, 'no name twice');
    const set = readSqlFunctionSet();
    set.names.forEach((name, i) => {
      const created = [...set.definitions[i]!.matchAll(/create or replace function (\w+)\(/gi)].map((m) => m[1]);
      assert.deepEqual(created, [name], `${name}.sql creates exactly ${name}`);
    });
  });

  it('the checksum follows the texts and their order', () => {
    const set = readSqlFunctionSet();
    assert.match(set.checksum, /^[0-9a-f]{64}$/);
    assert.equal(readSqlFunctionSet().checksum, set.checksum);
  });
});

for (const backend of backends()) {
  describe(`SQL function set installs [${backend}]`, () => {
    const ctx = useMigratedStore(backend);

    it('a migrated database has exactly the set, recorded once; installing again changes nothing', async () => {
      const set = readSqlFunctionSet();
      assert.deepEqual(await publicFunctions(ctx.store.db), [...SQL_FUNCTIONS].sort());
      assert.deepEqual(await installedChecksums(ctx.store.db), [set.checksum]);
      assert.equal(await installSqlFunctions(ctx.store.db), 'current');
      assert.deepEqual(await installedChecksums(ctx.store.db), [set.checksum]);
    });

    it('a new set replaces the installed one and drops the functions it no longer has; the replaced set is then refused', async () => {
      const set = readSqlFunctionSet();
      const next = shrunk(set);
      assert.equal(await installSqlFunctions(ctx.store.db, next), 'installed');
      assert.deepEqual(await publicFunctions(ctx.store.db), [...next.names].sort(), `${set.names.at(-1)} is dropped`);
      assert.deepEqual(await installedChecksums(ctx.store.db), [set.checksum, next.checksum]);

      await assert.rejects(installSqlFunctions(ctx.store.db, set), /was replaced by/);
      assert.deepEqual(await publicFunctions(ctx.store.db), [...next.names].sort(), 'the refused install changed nothing');
      assert.deepEqual(await installedChecksums(ctx.store.db), [set.checksum, next.checksum]);

      // A deliberate roll back (docs/architecture.md): forget that the older set was installed.
      await sql`delete from sql_function_sets where checksum = ${set.checksum}`.execute(ctx.store.db);
      assert.equal(await installSqlFunctions(ctx.store.db, set), 'installed');
      assert.deepEqual(await publicFunctions(ctx.store.db), [...SQL_FUNCTIONS].sort());
      assert.deepEqual(await installedChecksums(ctx.store.db), [next.checksum, set.checksum]);
    });
  });
}
