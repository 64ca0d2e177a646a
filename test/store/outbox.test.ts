/**
 * The outbox writes a transaction's frames in append order with gap-free per-(account, topic)
 * sequences, leaves broadcast frames unsequenced, and writes nothing when the transaction aborts.
 * After the commit, the commit listeners get the rows exactly as stored, whether the events were
 * written at the transaction's end or by a write function's own statement.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends, openMigratedStore } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { sql } from 'kysely';
import { appendEvent, eventsWritten, inTransaction, onOutboxCommit, takeAppendedEvents, type AppendedRow, type CommittedEvent } from '../../src/store/outbox.ts';

for (const backend of backends()) {
  describe(`outbox [${backend}]`, () => {
    let store: Store;
    let close: () => Promise<void>;
    before(async () => {
      ({ store, close } = await openMigratedStore(backend));
    });
    after(async () => {
      await close();
    });

    it('numbers frames per account and topic across transactions, in append order', async () => {
      const alice = randomUUID();
      const bob = randomUUID();
      await inTransaction(store.db, async (tx) => {
        await appendEvent(tx, { accountId: alice, topic: 'quotes', frame: { n: 1 } }, 1);
        await appendEvent(tx, { accountId: null, topic: 'openRfqs', frame: { n: 2 } }, 1);
        await appendEvent(tx, { accountId: alice, topic: 'quotes', frame: { n: 3 } }, 1);
        await appendEvent(tx, { accountId: bob, topic: 'quotes', frame: { n: 4 } }, 1);
        await appendEvent(tx, { accountId: alice, topic: 'balances', frame: { n: 5 } }, 1);
      });
      await inTransaction(store.db, async (tx) => {
        await appendEvent(tx, { accountId: alice, topic: 'quotes', frame: { n: 6 } }, 2);
      });
      await assert.rejects(
        inTransaction(store.db, async (tx) => {
          await appendEvent(tx, { accountId: alice, topic: 'quotes', frame: { n: 7 } }, 3);
          throw new Error('abort');
        }),
      );
      await inTransaction(store.db, async (tx) => {
        await appendEvent(tx, { accountId: alice, topic: 'quotes', frame: { n: 8 } }, 4);
      });
      const rows = await store.db.selectFrom('outbox').select(['account_id', 'topic', 'seq', 'frame']).orderBy('id').execute();
      const seen = rows.map((r) => [r.account_id === alice ? 'alice' : r.account_id === bob ? 'bob' : null, r.topic, r.seq, (r.frame as { n: number }).n]);
      assert.deepEqual(seen, [
        ['alice', 'quotes', 1, 1],
        [null, 'openRfqs', null, 2],
        ['alice', 'quotes', 2, 3],
        ['bob', 'quotes', 1, 4],
        ['alice', 'balances', 1, 5],
        ['alice', 'quotes', 3, 6],
        ['alice', 'quotes', 4, 8],
      ]);
    });

    it('hands the commit listeners the rows as stored, frames included, after the commit only', async () => {
      const alice = randomUUID();
      const heard: Array<readonly CommittedEvent[] | null> = [];
      const last = (await store.db.selectFrom('outbox').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst())?.id ?? 0;
      const unsubscribe = onOutboxCommit(store.db, (events) => heard.push(events));
      try {
        const frame = { kind: 'quoteUpdate', nested: { amount: '1.5', list: [1, null, 'x'] }, n: 12.5, at: 1_732_812_345_678, quoteId: null };
        await inTransaction(store.db, async (tx) => {
          await appendEvent(tx, { accountId: alice, topic: 'quotes', frame }, 1);
          await appendEvent(tx, { accountId: null, topic: 'openRfqs', frame: { kind: 'openRfq', instrumentId: 'ETH-USDC-SPOT' } }, 1);
          // A write function's own statement appends what was buffered so far (perp-commit-functions.ts).
          const taken = await takeAppendedEvents(tx);
          const { rows } = await sql<{ rows: AppendedRow[] }>`select rfq_append_events(${taken.payload}::jsonb) as rows`.execute(tx);
          eventsWritten(tx, taken, rows[0]!.rows);
          await appendEvent(tx, { accountId: alice, topic: 'quotes', frame: { kind: 'quoteUpdate', n: 3 } }, 2);
          assert.deepEqual(heard, [], 'nothing before the commit');
        });
        await assert.rejects(
          inTransaction(store.db, async (tx) => {
            await appendEvent(tx, { accountId: alice, topic: 'quotes', frame: { n: 4 } }, 3);
            throw new Error('abort');
          }),
        );
        const stored = await store.db.selectFrom('outbox').select(['id', 'account_id', 'topic', 'seq', 'frame']).where('id', '>', Number(last)).orderBy('id').execute();
        assert.equal(stored.length, 3);
        assert.deepEqual(heard, [stored]);
      } finally {
        unsubscribe();
      }
    });

    it('refuses an event appended outside inTransaction', async () => {
      await assert.rejects(
        store.db.transaction().execute((tx) => appendEvent(tx, { accountId: null, topic: 'openRfqs', frame: {} }, 1)),
        /outside inTransaction/,
      );
    });
  });
}
