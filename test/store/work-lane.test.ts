/**
 * The background lane's share of the database: with every connection requests
 * may take held, a request waits but background work still gets a connection at once
 * (PostgreSQL: reserved connections); on PGlite's one connection a waiting background holder goes
 * before waiting requests.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { backends, createTestDatabase } from '../helpers/backends.ts';
import { openStore } from '../../src/store/database.ts';
import { inBackgroundLane, reservedForBackground } from '../../src/store/work-lane.ts';
import { elapse } from '../helpers/eventually.ts';

/** Opens `n` transactions that stay open until the returned release is called. */
async function holdTransactions(db: Awaited<ReturnType<typeof openStore>>['db'], n: number): Promise<{ release: () => Promise<void> }> {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const opened: Array<Promise<void>> = [];
  const done: Array<Promise<void>> = [];
  for (let i = 0; i < n; i++) {
    let started: () => void = () => undefined;
    opened.push(new Promise<void>((resolve) => (started = resolve)));
    done.push(db.transaction().execute(async (tx) => {
      await sql`select 1`.execute(tx);
      started();
      await gate;
    }));
  }
  await Promise.all(opened);
  return { release: async () => { release(); await Promise.all(done); } };
}

describe('database lanes', () => {
  it('keeps a quarter of the pool (at least one) for background work', () => {
    assert.deepEqual([1, 2, 4, 10, 20].map(reservedForBackground), [0, 1, 1, 2, 5]);
  });

  for (const backend of backends()) {
    it(`[${backend}] background work gets a connection while requests wait`, async () => {
      const database = await createTestDatabase(backend);
      const size = 4;
      const store = await openStore(database.location.kind === 'postgres' ? { ...database.location, poolSize: size } : database.location);
      try {
        const requestShare = backend === 'postgres' ? size - reservedForBackground(size) : 1;
        const held = await holdTransactions(store.db, requestShare);
        const order: string[] = [];
        const request = sql`select 1`.execute(store.db).then(() => order.push('request'));
        // Let the request queue first: the background query still goes before it. The pool marks
        // no queued request the test could wait for.
        await elapse(50, 'the request queues for a connection before the background query');
        const background = inBackgroundLane(() => sql`select 1`.execute(store.db)).then(() => order.push('background'));
        if (backend === 'postgres') {
          await background;
          assert.deepEqual(order, ['background'], 'the background query ran while the request still waited');
          await held.release();
          await request;
        } else {
          await held.release();
          await Promise.all([request, background]);
          assert.deepEqual(order, ['background', 'request']);
        }
      } finally {
        await store.close();
        await database.drop();
      }
    });
  }
});
