/**
 * The outbox dispatcher on its own: starts after existing rows, adds `seq`, skips broadcast rows,
 * bounds a poll by batch size, and waits for an id hole to fill (a late committer) before
 * moving past it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { sql } from 'kysely';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { OutboxDispatcher } from '../../src/ws/outbox-dispatcher.ts';
import { SessionHub } from '../../src/ws/hub.ts';
import { onOutboxCommit } from '../../src/store/outbox.ts';

for (const backend of backends()) {
  describe(`outbox dispatcher [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      // No background dispatcher: this test drives polls by hand.
      h = await startHarness(backend, { workers: new Set() });
    });
    after(async () => h.close());

    async function insert(id: number | null, accountId: string | null, seq: number | null, n: number) {
      const frame = JSON.stringify({ kind: 'balanceSnapshot', n });
      if (id === null) {
        await sql`insert into outbox (account_id, topic, seq, frame, created_at) values (${accountId}, 'balances', ${seq}, ${frame}::jsonb, 0)`.execute(h.node.store.db);
      } else {
        await sql`insert into outbox (id, account_id, topic, seq, frame, created_at) values (${id}, ${accountId}, 'balances', ${seq}, ${frame}::jsonb, 0)`.execute(h.node.store.db);
      }
    }

    async function maxId(): Promise<number> {
      const row = await h.node.store.db.selectFrom('outbox').select((eb) => eb.fn.max('id').as('max')).executeTakeFirst();
      return Number(row?.max ?? 0);
    }

    it('delivers in id order with seq, skips broadcasts, and waits out an id hole', async () => {
      const account = randomUUID();
      const got: Array<Record<string, unknown>> = [];
      const hub = new SessionHub();
      hub.add({ accountId: account, deliver: (_topic, frame) => got.push(frame) });
      await insert(null, account, 1, 0); // before start: never delivered
      const dispatcher = new OutboxDispatcher({ db: h.node.store.db, hub, logger: pino({ level: 'silent' }), pollIntervalMs: 1_000_000, batchSize: 2, gapGraceMs: 300 });
      await dispatcher.start();
      const base = await maxId();
      await insert(base + 1, account, 2, 1);
      await insert(base + 2, null, null, 2); // broadcast: consumed, not delivered here
      await insert(base + 3, account, 3, 3);
      assert.equal(await dispatcher.poll(), 2); // bounded by batchSize
      assert.equal(await dispatcher.poll(), 1);
      assert.deepEqual(got.map((f) => [f.n, f.seq]), [[1, 2], [3, 3]]);

      // Hole at base+4: base+5 waits until the hole fills or the grace passes.
      await insert(base + 5, account, 5, 5);
      assert.equal(await dispatcher.poll(), 0);
      await insert(base + 4, account, 4, 4);
      assert.equal(await dispatcher.poll(), 2);
      assert.deepEqual(got.map((f) => f.n), [1, 3, 4, 5]);

      // A hole that never fills (rolled-back id) is passed after the grace.
      await insert(base + 7, account, 7, 7);
      assert.equal(await dispatcher.poll(), 0);
      await new Promise((resolve) => setTimeout(resolve, 350));
      assert.equal(await dispatcher.poll(), 1);
      assert.deepEqual(got.map((f) => f.n), [1, 3, 4, 5, 7]);
      await dispatcher.stop();
    });

    it('reads at once when woken by a commit, without waiting for its poll', async () => {
      // The test above wrote explicit ids; move the sequence past them.
      await sql`select setval(pg_get_serial_sequence('outbox', 'id'), (select max(id) from outbox))`.execute(h.node.store.db);
      const { account, client } = await h.newUser();
      const userId = client.login!.userId;
      const got: Array<Record<string, unknown>> = [];
      let wake: () => void = () => undefined;
      const arrived = new Promise<void>((resolve) => (wake = resolve));
      const hub = new SessionHub();
      hub.add({ accountId: userId, deliver: (_topic, frame) => { got.push(frame); wake(); } });
      // A poll interval far beyond the test's length: only the commit wake-up can deliver.
      const dispatcher = new OutboxDispatcher({ db: h.node.store.db, hub, logger: pino({ level: 'silent' }), pollIntervalMs: 1_000_000 });
      await dispatcher.start();
      const unsubscribe = onOutboxCommit(h.node.store.db, () => dispatcher.wake());
      try {
        await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '7', memo: 'wake' });
        await arrived;
        assert.equal(got[0]?.kind, 'balanceSnapshot');
      } finally {
        unsubscribe();
        await dispatcher.stop();
      }
    });
  });
}
