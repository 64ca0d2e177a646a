/**
 * The embedded store's autovacuum (src/store/embedded-maintenance.ts, run by
 * src/runtime/store-maintenance.ts): autovacuum's rule, a round that vacuums and analyzes exactly
 * the tables that are due, and the node's rounds on PGlite (none on PostgreSQL, which has its own).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import pino from 'pino';
import { backends, openMigratedStore } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { maintainTables, maintenanceDue, readTableCounters } from '../../src/store/embedded-maintenance.ts';
import { startStoreMaintenance } from '../../src/runtime/store-maintenance.ts';
import { eventually } from '../helpers/eventually.ts';

describe('embedded store maintenance: the rule', () => {
  const table = (t: Partial<Parameters<typeof maintenanceDue>[0]>) => maintenanceDue({ table: 't', rows: 1000, deadRows: 0, insertedSinceVacuum: 0, changedSinceAnalyze: 0, ...t });
  it('vacuums past 50 + 20% dead rows or 1,000 + 20% inserted rows, analyzes past 50 + 10% changed rows', () => {
    assert.equal(table({}), null);
    assert.equal(table({ deadRows: 250 }), null);
    assert.equal(table({ deadRows: 251 }), 'vacuum');
    assert.equal(table({ insertedSinceVacuum: 1200 }), null);
    assert.equal(table({ insertedSinceVacuum: 1201 }), 'vacuum');
    assert.equal(table({ changedSinceAnalyze: 150 }), null);
    assert.equal(table({ changedSinceAnalyze: 151 }), 'analyze');
    assert.equal(table({ deadRows: 251, changedSinceAnalyze: 151 }), 'vacuum', 'a vacuum analyzes too');
    // Never analyzed (reltuples -1): the thresholds alone.
    assert.equal(table({ rows: -1, changedSinceAnalyze: 51 }), 'analyze');
    assert.equal(table({ rows: -1, deadRows: 51 }), 'vacuum');
  });
});

for (const backend of backends()) {
  describe(`embedded store maintenance [${backend}]`, () => {
    let store: Store;
    let close: () => Promise<void>;
    const probe = async (name: string) => (await readTableCounters(store.db)).find((t) => t.table === name)!;
    const lastVacuum = async (name: string) => {
      const { rows } = await sql<{ at: Date | null }>`select last_vacuum as at from pg_stat_user_tables where relname = ${name}`.execute(store.db);
      return rows[0]?.at ?? null;
    };
    before(async () => {
      ({ store, close } = await openMigratedStore(backend));
    });
    after(async () => {
      await close();
    });

    it('a round vacuums and analyzes the table with dead rows, and only it; the next round finds nothing due there', async () => {
      await sql`create table maint_churned (id int primary key, v int)`.execute(store.db);
      await sql`create table maint_quiet (id int primary key)`.execute(store.db);
      await sql`insert into maint_churned select g, 0 from generate_series(1, 2000) g`.execute(store.db);
      await sql`insert into maint_quiet values (1)`.execute(store.db);
      await maintainTables(store.db); // whatever the migrations left due, and the first inserts
      await sql`update maint_churned set v = v + 1`.execute(store.db);
      const before = await probe('maint_churned');
      assert.ok(before.deadRows >= 2000, `the update left ${before.deadRows} dead rows`);
      assert.equal(maintenanceDue(before), 'vacuum');

      const done = await maintainTables(store.db);
      assert.ok(done.some((d) => d.table === 'maint_churned' && d.action === 'vacuum'), JSON.stringify(done));
      assert.ok(!done.some((d) => d.table === 'maint_quiet'), 'a table with nothing due is left alone');
      const afterRound = await probe('maint_churned');
      assert.equal(afterRound.deadRows, 0);
      assert.equal(afterRound.rows, 2000, 'the planner now knows its size');
      assert.equal(afterRound.changedSinceAnalyze, 0);
      assert.notEqual(await lastVacuum('maint_churned'), null);
      assert.ok(!(await maintainTables(store.db)).some((d) => d.table === 'maint_churned'));

      await sql`update maint_churned set v = v + 1 where id <= 300`.execute(store.db);
      const analyzed = await maintainTables(store.db);
      // 300 dead rows are under 50 + 20% of 2,000; 300 changed rows are over 50 + 10%.
      assert.deepEqual(analyzed.filter((d) => d.table === 'maint_churned'), [{ table: 'maint_churned', action: 'analyze' }]);
    });

    it(backend === 'pglite' ? 'the node runs rounds by itself on PGlite' : 'the node runs no rounds on PostgreSQL (its autovacuum does)', async () => {
      await sql`create table maint_node (id int primary key, v int)`.execute(store.db);
      await sql`insert into maint_node select g, 0 from generate_series(1, 500) g`.execute(store.db);
      await sql`update maint_node set v = 1`.execute(store.db);
      const maintenance = startStoreMaintenance(store, pino({ level: 'silent' }), 50);
      try {
        // On PostgreSQL no round comes: the full 3 s then show that none did.
        await eventually(() => lastVacuum('maint_node'), (vacuumed) => vacuumed !== null, 3000);
      } finally {
        await maintenance.stop();
      }
      if (backend === 'pglite') assert.notEqual(await lastVacuum('maint_node'), null);
      else assert.equal(await lastVacuum('maint_node'), null, 'last_vacuum is a manual VACUUM; autovacuum stamps last_autovacuum');
    });
  });
}
