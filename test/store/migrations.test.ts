/**
 * Migrations on an empty database of each kind: every table that `src/store/schema.ts` types
 * exists with exactly those columns (nullability and SQL types matching the TypeScript row types
 * and the driver mapping in database.ts), the two backends end up with identical catalogs, and
 * migrating again (same connection, or after reopening) is a no-op.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { sql, type Kysely } from 'kysely';
import { openStore, type Store, type StoreLocation } from '../../src/store/database.ts';
import { migrateToLatest, migrationNames } from '../../src/store/migrate.ts';
import { backends, createTestDatabase, type Backend, type TestDatabase } from '../helpers/backends.ts';

const SCHEMA_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/store/schema.ts');
/** Kysely's own bookkeeping tables, created by the migrator. */
const MIGRATOR_TABLES = ['kysely_migration', 'kysely_migration_lock'];

interface ColumnSpec {
  nullable: boolean;
  /** SQL data types this TypeScript type may have (information_schema.columns.data_type); null = not checked. */
  sqlTypes: string[] | null;
}

/**
 * Reads `interface DB { table: XTable }` and each row interface from schema.ts, so the test follows
 * the schema file as it grows. TypeScript types map to SQL types as database.ts parses them:
 * bigint <- numeric, number <- int8/int4, string <- text/uuid, boolean, Json<> <- jsonb.
 */
function expectedSchema(): Map<string, Map<string, ColumnSpec>> {
  const source = ts.createSourceFile(SCHEMA_FILE, readFileSync(SCHEMA_FILE, 'utf8'), ts.ScriptTarget.Latest, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node);
  });
  const db = interfaces.get('DB');
  assert.ok(db, 'schema.ts declares interface DB');
  const propertyName = (member: ts.TypeElement): string => {
    assert.ok(ts.isPropertySignature(member) && member.name && (ts.isIdentifier(member.name) || ts.isStringLiteral(member.name)), `unexpected member in schema.ts: ${member.getText(source)}`);
    return member.name.text;
  };
  const sqlTypesOf = (type: ts.TypeNode): string[] | null => {
    if (ts.isParenthesizedTypeNode(type)) return sqlTypesOf(type.type);
    if (type.kind === ts.SyntaxKind.BigIntKeyword) return ['numeric'];
    if (type.kind === ts.SyntaxKind.NumberKeyword) return ['bigint', 'integer'];
    if (type.kind === ts.SyntaxKind.StringKeyword) return ['text', 'uuid'];
    if (type.kind === ts.SyntaxKind.BooleanKeyword) return ['boolean'];
    if (ts.isLiteralTypeNode(type) && ts.isStringLiteral(type.literal)) return ['text'];
    if (ts.isUnionTypeNode(type)) {
      const parts = type.types.filter((t) => !(ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword)).map(sqlTypesOf);
      if (parts.some((p) => p === null)) return null;
      return [...new Set(parts.flatMap((p) => p!))];
    }
    if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) {
      const name = type.typeName.text;
      if (name === 'Json') return ['jsonb'];
      if ((name === 'Generated' || name === 'ColumnType') && type.typeArguments?.[0]) return sqlTypesOf(type.typeArguments[0]);
    }
    return null; // some other alias: existence and nullability are still checked
  };
  // Generated<T | null> is a nullable column the insert may leave out: look through the wrapper.
  const nullable = (type: ts.TypeNode): boolean => {
    if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && type.typeName.text === 'Generated' && type.typeArguments?.[0]) {
      return nullable(type.typeArguments[0]);
    }
    return ts.isUnionTypeNode(type) && type.types.some((t) => ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword);
  };

  const tables = new Map<string, Map<string, ColumnSpec>>();
  for (const member of db.members) {
    const table = propertyName(member);
    const type = (member as ts.PropertySignature).type;
    assert.ok(type && ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName), `DB.${table} names a row interface`);
    const row = interfaces.get(type.typeName.text);
    assert.ok(row, `schema.ts declares ${type.typeName.text} (for DB.${table})`);
    const columns = new Map<string, ColumnSpec>();
    for (const column of row.members) {
      const columnType = (column as ts.PropertySignature).type;
      assert.ok(columnType, `${type.typeName.text}.${propertyName(column)} has a type`);
      columns.set(propertyName(column), { nullable: nullable(columnType), sqlTypes: sqlTypesOf(columnType) });
    }
    tables.set(table, columns);
  }
  assert.ok(tables.size > 0);
  return tables;
}

interface CatalogColumn { table: string; column: string; dataType: string; nullable: boolean; numeric: string | null; default: string | null }

/** What the database says: every column of every table in `public`, plus every index definition. */
async function catalog(db: Kysely<any>): Promise<{ columns: CatalogColumn[]; indexes: string[]; tables: string[] }> {
  const columns = await sql<{ table_name: string; column_name: string; data_type: string; is_nullable: string; numeric_precision: number | null; numeric_scale: number | null; column_default: string | null }>`
    select table_name, column_name, data_type, is_nullable, numeric_precision, numeric_scale, column_default
    from information_schema.columns
    where table_schema = 'public'
    order by table_name, column_name
  `.execute(db);
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name
  `.execute(db);
  const indexes = await sql<{ indexdef: string }>`select indexdef from pg_indexes where schemaname = 'public' order by indexname`.execute(db);
  return {
    tables: tables.rows.map((r) => r.table_name),
    columns: columns.rows.map((r) => ({
      table: r.table_name,
      column: r.column_name,
      dataType: r.data_type,
      nullable: r.is_nullable === 'YES',
      numeric: r.numeric_precision === null ? null : `${r.numeric_precision},${r.numeric_scale}`,
      default: r.column_default,
    })),
    indexes: indexes.rows.map((r) => r.indexdef),
  };
}

async function appliedMigrations(db: Kysely<any>): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

const catalogs = new Map<Backend, Awaited<ReturnType<typeof catalog>>>();

for (const backend of backends()) {
  describe(`migrations [${backend}]`, () => {
    let database: TestDatabase;
    let location: StoreLocation;
    let pgliteDir: string | null = null;
    let store: Store;

    before(async () => {
      if (backend === 'pglite') {
        // On disk, so the reopen test below sees the same files.
        pgliteDir = await mkdtemp(path.join(tmpdir(), 'rfq-migrate-'));
        location = { kind: 'pglite', dataDir: pgliteDir };
        database = { location, drop: async () => undefined };
      } else {
        database = await createTestDatabase(backend);
        location = database.location;
      }
      store = await openStore(location);
    });
    after(async () => {
      await store.close();
      await database.drop();
      if (pgliteDir) await rm(pgliteDir, { recursive: true, force: true });
    });

    it('applies every migration, in order, to an empty database', async () => {
      assert.deepEqual((await catalog(store.db)).tables, [], 'the database starts empty');
      const applied = await migrateToLatest(store.db);
      assert.deepEqual(applied, migrationNames);
      assert.deepEqual(await appliedMigrations(store.db), [...migrationNames].sort());
    });

    it('creates each table of schema.ts with exactly its columns, nullability and types', async () => {
      const expected = expectedSchema();
      const actual = await catalog(store.db);
      catalogs.set(backend, actual);
      assert.deepEqual(
        actual.tables.filter((t) => !MIGRATOR_TABLES.includes(t)),
        [...expected.keys()].sort(),
        'the tables in the database are exactly those schema.ts types',
      );
      for (const [table, columns] of expected) {
        const inDb = actual.columns.filter((c) => c.table === table);
        assert.deepEqual(inDb.map((c) => c.column).sort(), [...columns.keys()].sort(), `columns of ${table}`);
        for (const column of inDb) {
          const spec = columns.get(column.column)!;
          assert.equal(column.nullable, spec.nullable, `${table}.${column.column}: nullable in SQL ${column.nullable}, in schema.ts ${spec.nullable}`);
          if (spec.sqlTypes) {
            assert.ok(spec.sqlTypes.includes(column.dataType), `${table}.${column.column}: SQL type ${column.dataType}, schema.ts allows ${spec.sqlTypes.join('/')}`);
          }
          if (column.dataType === 'numeric') assert.equal(column.numeric, '78,0', `${table}.${column.column}: amounts are NUMERIC(78,0)`);
        }
      }
    });

    it('running the migrations again is a no-op', async () => {
      const before = await catalog(store.db);
      assert.deepEqual(await migrateToLatest(store.db), [], 'nothing left to apply');
      assert.deepEqual(await catalog(store.db), before, 'the catalog is unchanged');
      assert.deepEqual(await appliedMigrations(store.db), [...migrationNames].sort(), 'no duplicate bookkeeping rows');
    });

    it('after reopening the store, migrating is still a no-op and the data is kept', async () => {
      await sql`insert into tokens (symbol, decimals, address, updated_at) values ('KEEP', 6, null, 1)`.execute(store.db);
      const before = await catalog(store.db);
      await store.close();
      store = await openStore(location);
      assert.deepEqual(await migrateToLatest(store.db), []);
      assert.deepEqual(await catalog(store.db), before);
      const kept = await sql<{ decimals: number }>`select decimals from tokens where symbol = 'KEEP'`.execute(store.db);
      assert.deepEqual(kept.rows, [{ decimals: 6 }]);
    });

    it('serialises concurrent migrators on one database (PostgreSQL only)', async (t) => {
      if (backend !== 'postgres') {
        t.skip('PGlite is a single in-process connection; concurrent starters only exist on PostgreSQL');
        return;
      }
      const fresh = await createTestDatabase('postgres');
      const stores = await Promise.all([openStore(fresh.location), openStore(fresh.location), openStore(fresh.location)]);
      try {
        const results = await Promise.all(stores.map((s) => migrateToLatest(s.db)));
        assert.deepEqual(results.flat().sort(), [...migrationNames].sort(), 'each migration applied exactly once across the starters');
        assert.deepEqual(await appliedMigrations(stores[0]!.db), [...migrationNames].sort());
        const columns = (await catalog(stores[0]!.db)).columns;
        assert.deepEqual(columns, catalogs.get('postgres')?.columns ?? columns);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
        await fresh.drop();
      }
    });
  });
}

describe('migrations are history', () => {
  it('import nothing of the project but types, so a migration runs the same however the code moves on', () => {
    const folder = path.resolve(path.dirname(SCHEMA_FILE), 'migrations');
    for (const file of readdirSync(folder)) {
      const source = ts.createSourceFile(file, readFileSync(path.join(folder, file), 'utf8'), ts.ScriptTarget.Latest, true);
      for (const statement of source.statements) {
        if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
        const from = statement.moduleSpecifier.text;
        assert.ok(from === 'kysely' || statement.importClause?.isTypeOnly, `${file} imports values from ${from}`);
      }
    }
  });
});

describe('migrations: PGlite and PostgreSQL agree', () => {
  it('produce identical columns, types, defaults and indexes', (t) => {
    if (backends().length < 2) {
      t.skip('set TEST_DATABASE_URL to compare PGlite with a PostgreSQL server');
      return;
    }
    const pglite = catalogs.get('pglite');
    const postgres = catalogs.get('postgres');
    assert.ok(pglite && postgres, 'both backends were migrated above');
    assert.deepEqual(pglite.tables, postgres.tables);
    assert.deepEqual(pglite.columns, postgres.columns);
    assert.deepEqual(pglite.indexes, postgres.indexes);
  });
});
