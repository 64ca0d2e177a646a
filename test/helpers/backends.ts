/**
 * The store matrix: every store-backed test runs on PGlite, and on the PostgreSQL server named by
 * TEST_DATABASE_URL when set (each test node gets a fresh database there, dropped afterwards).
 */
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import pg from 'pg';
import { openStore, type Store, type StoreLocation } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';

export type Backend = 'pglite' | 'postgres';

export function backends(): Backend[] {
  return process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

export interface TestDatabase {
  location: StoreLocation;
  drop(): Promise<void>;
}

export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  if (backend === 'pglite') return { location: { kind: 'pglite', dataDir: null }, drop: async () => undefined };
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `rfq_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    location: { kind: 'postgres', url: url.toString(), poolSize: 10 },
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** A fresh database of `backend` with the schema migrated; `close` closes the store and drops the database. */
export async function openMigratedStore(backend: Backend): Promise<{ store: Store; close(): Promise<void> }> {
  const database = await createTestDatabase(backend);
  const store = await openStore(database.location);
  await migrateToLatest(store.db);
  return {
    store,
    async close() {
      await store.close();
      await database.drop();
    },
  };
}

/**
 * Registers a describe block's `before` and `after` hooks for a fresh migrated store of `backend`
 * (call it inside `describe`); the answer's `store` is set once `before` has run.
 */
export function useMigratedStore(backend: Backend): { readonly store: Store } {
  let opened: Awaited<ReturnType<typeof openMigratedStore>> | undefined;
  before(async () => {
    opened = await openMigratedStore(backend);
  });
  after(async () => {
    await opened?.close();
  });
  return {
    get store() {
      if (!opened) throw new Error('the store is used before its before hook ran');
      return opened.store;
    },
  };
}
