/**
 * Service outages (src/services/settlement/service-outages.ts): a node's start after a gap in the
 * service's heartbeat records the gap once; a start while the service beats records nothing; the
 * expiry's overlap question. Across a real restart on PostgreSQL: a node started on a store whose
 * service was last alive a minute ago records that minute.
 */
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends, createTestDatabase, openMigratedStore, type TestDatabase } from '../../helpers/backends.ts';
import { openStore } from '../../../src/store/database.ts';
import { startHarness } from '../../helpers/harness.ts';
import { markServiceAlive, noteServiceStart, outageDuring } from '../../../src/services/settlement/service-outages.ts';

for (const backend of backends()) {
  describe(`service outages [${backend}]`, () => {
    it('records the gap a start ends, once; nothing on a fresh store or while the service beats', async () => {
      const { store, close } = await openMigratedStore(backend);
      try {
        const db = store.db;
        const start = (now: number) => db.transaction().execute((tx) => noteServiceStart(tx, now, 2000));
        assert.equal(await start(1_000_000), null, 'a store that never saw the service alive');
        await db.transaction().execute((tx) => markServiceAlive(tx, 1_001_000));
        await db.transaction().execute((tx) => markServiceAlive(tx, 1_000_500));
        assert.equal((await db.selectFrom('service_liveness').select('alive_at').executeTakeFirstOrThrow()).alive_at, 1_001_000, 'a late beat does not move it back');
        assert.equal(await start(1_003_000), null, 'two seconds since the last beat is not an outage');
        assert.deepEqual(await start(1_010_000), { startedAt: 1_003_000, endedAt: 1_010_000 });
        assert.equal(await start(1_010_100), null, 'the start marked the service alive');
        assert.deepEqual(await db.selectFrom('service_outages').selectAll().execute(), [{ started_at: 1_003_000, ended_at: 1_010_000 }]);

        assert.equal(await outageDuring(db, 1_000_000, 1_005_000), true, 'a window into the outage');
        assert.equal(await outageDuring(db, 1_009_000, 1_020_000), true, 'a window out of it');
        assert.equal(await outageDuring(db, 1_004_000, 1_005_000), true, 'a window inside it');
        assert.equal(await outageDuring(db, 1_000_000, 1_003_000), false, 'a window ending as it began');
        assert.equal(await outageDuring(db, 1_010_000, 1_020_000), false, 'a window beginning as it ended');
      } finally {
        await close();
      }
    });
  });
}

describe('service outages across a restart [postgres]', { skip: !backends().includes('postgres') && 'needs TEST_DATABASE_URL' }, () => {
  let database: TestDatabase | null = null;
  after(async () => database?.drop());

  it('a node started on a store whose service was last alive a minute ago records that minute; a node beside a live one records nothing', async () => {
    database = await createTestDatabase('postgres');
    const first = await startHarness('postgres', { database });
    const alive = await first.node.store.db.selectFrom('service_liveness').select('alive_at').executeTakeFirstOrThrow();
    assert.ok(Date.now() - alive.alive_at < 5000, 'the running node beats');
    const beside = await startHarness('postgres', { database, seed: false });
    await beside.close();
    await first.close();
    assert.deepEqual(await outages(database), [], 'a node started beside a live one');

    // The service down for a minute: nothing beats meanwhile, so its last beat is a minute old.
    const store = await openStore(database.location);
    const lastAlive = Date.now() - 60_000;
    await store.db.updateTable('service_liveness').set({ alive_at: lastAlive }).execute();
    await store.close();
    const second = await startHarness('postgres', { database, seed: false });
    const startedBy = Date.now();
    await second.close();
    const recorded = await outages(database);
    assert.equal(recorded.length, 1);
    assert.equal(recorded[0]!.started_at, lastAlive);
    assert.ok(recorded[0]!.ended_at > lastAlive + 59_000 && recorded[0]!.ended_at <= startedBy, JSON.stringify(recorded));
  });
});

async function outages(database: TestDatabase) {
  const store = await openStore(database.location);
  try {
    return await store.db.selectFrom('service_outages').selectAll().execute();
  } finally {
    await store.close();
  }
}
