/**
 * An old database upgrades to head: the fixture (test/fixtures/upgrade/, a database built by the
 * migrations as they stood at an early commit, with a little data; scripts/make-upgrade-fixture.ts
 * made it) is loaded into an empty database of each kind, head's migrations and SQL function set
 * run over it, and it ends with its data kept and the same relations, columns, constraints,
 * indexes, functions and triggers as a database migrated from empty.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { sql } from 'kysely';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest, migrationNames } from '../../src/store/migrate.ts';
import { SQL_FUNCTIONS } from '../../src/store/sql/manifest.ts';
import { backends, createTestDatabase, openMigratedStore, type Backend, type TestDatabase } from '../helpers/backends.ts';
import { schemaCatalog } from '../helpers/schema-catalog.ts';

const FIXTURE_COMMIT = '6900028';
const FIXTURE = readFileSync(new URL(`../fixtures/upgrade/${FIXTURE_COMMIT}.sql`, import.meta.url), 'utf8');

/** An empty database of `backend` with the fixture loaded (through a connection of its own: the dump changes its connection's settings). */
async function loadFixture(backend: Backend): Promise<{ store: Store; database: TestDatabase }> {
  const database = await createTestDatabase(backend);
  if (database.location.kind === 'pglite') {
    const loader = await PGlite.create();
    await loader.exec(FIXTURE);
    const from = await loader.dumpDataDir('none');
    await loader.close();
    return { store: await openStore({ kind: 'pglite', dataDir: null, from }), database };
  }
  const client = new pg.Client({ connectionString: database.location.url });
  await client.connect();
  await client.query(FIXTURE);
  await client.end();
  return { store: await openStore(database.location), database };
}

for (const backend of backends()) {
  describe(`upgrade from ${FIXTURE_COMMIT} [${backend}]`, () => {
    let upgraded: Awaited<ReturnType<typeof loadFixture>>;
    let fresh: Awaited<ReturnType<typeof openMigratedStore>>;
    let applied: string[];

    before(async () => {
      upgraded = await loadFixture(backend);
      applied = await migrateToLatest(upgraded.store.db);
      fresh = await openMigratedStore(backend);
    });
    after(async () => {
      await upgraded?.store.close();
      await upgraded?.database.drop();
      await fresh?.close();
    });

    it('runs only the migrations the old database had not run', async () => {
      const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(upgraded.store.db);
      assert.deepEqual(rows.map((r) => r.name), [...migrationNames].sort());
      assert.ok(applied.length > 0 && applied.length < migrationNames.length, `applied ${applied.length} of ${migrationNames.length}`);
      assert.ok(!applied.includes('0001-foundation'));
    });

    it('keeps its data', async () => {
      const db = upgraded.store.db;
      const balances = await db.selectFrom('balances').select(['account_id', 'token', 'available', 'locked']).orderBy('token').execute();
      assert.deepEqual(balances, [
        { account_id: '00000000-0000-4000-8000-000000000002', token: 'ETH', available: 5000000000000000000n, locked: 0n },
        { account_id: '00000000-0000-4000-8000-000000000001', token: 'USDC', available: 123456789012345678901234567890n, locked: 0n },
      ]);
      const rfq = await db.selectFrom('rfqs').select(['status', 'base_qty', 'auction_ends_at', 'audience_except']).where('id', '=', 'rfq-fixture').executeTakeFirstOrThrow();
      assert.deepEqual(rfq, { status: 'PENDING', base_qty: 1000000000000000000n, auction_ends_at: 2500, audience_except: [] });
      const quote = await db.selectFrom('quotes').select(['status', 'version', 'taker_total']).where('id', '=', 'quote-fixture').executeTakeFirstOrThrow();
      assert.deepEqual(quote, { status: 'SUBMITTED', version: 1, taker_total: 3000750000n });
      const maker = await db.selectFrom('makers').select(['active', 'alias', 'denied_takers']).executeTakeFirstOrThrow();
      assert.deepEqual(maker, { active: true, alias: null, denied_takers: [] });
    });

    it('answers through head\'s functions', async () => {
      const { rows } = await sql<{ outcome: string }>`select outcome from rfq_claim_timestamps(array['ak-fixture'], array[5000::int8])`.execute(upgraded.store.db);
      assert.deepEqual(rows, [{ outcome: 'claimed' }]);
    });

    it('ends with the catalogs of a database migrated from empty', async () => {
      const want = await schemaCatalog(fresh.store.db);
      const got = await schemaCatalog(upgraded.store.db);
      assert.ok(want.functions.length === SQL_FUNCTIONS.length && want.constraints.length > 0 && want.indexes.length > 0, 'the catalogs compared are not empty');
      for (const part of Object.keys(want) as Array<keyof typeof want>) assert.deepEqual(got[part], want[part], part);
    });
  });
}
