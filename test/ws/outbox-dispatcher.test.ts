/**
 * The outbox dispatcher on its own: starts after existing rows, adds `seq`, skips broadcast rows,
 * bounds a poll by batch size, waits for an id hole held by a transaction in flight (a late
 * committer) and passes at once one no transaction can fill (rolled back, lost in a crash).
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
import { eventually } from '../helpers/eventually.ts';

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

    /** A started dispatcher (polled by hand) and one session of a fresh account collecting its frames. */
    async function listening(gapGraceMs: number) {
      const account = randomUUID();
      const got: Array<Record<string, unknown>> = [];
      const hub = new SessionHub();
      hub.add({ accountId: account, deliver: (_topic, frame) => got.push(frame) });
      const dispatcher = new OutboxDispatcher({ db: h.node.store.db, hub, logger: pino({ level: 'silent' }), pollIntervalMs: 1_000_000, gapGraceMs });
      await dispatcher.start();
      return { account, got, dispatcher };
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

      // A hole no transaction holds (an id lost in a crash, as PGlite's recovery leaves them) is
      // passed at once, not after the grace.
      await insert(base + 5, account, 5, 5);
      assert.equal(await dispatcher.poll(), 1);
      assert.deepEqual(got.map((f) => f.n), [1, 3, 5]);
      await dispatcher.stop();
    });

    it('passes a rolled-back id at once, long before the grace', async () => {
      await sql`select setval(pg_get_serial_sequence('outbox', 'id'), (select max(id) from outbox))`.execute(h.node.store.db);
      const { account, got, dispatcher } = await listening(60_000);
      const rolledBack = new Error('roll back');
      await assert.rejects(
        h.node.store.db.transaction().execute(async (tx) => {
          await sql`insert into outbox (account_id, topic, seq, frame, created_at) values (${account}, 'balances', 1, '{"n":1}'::jsonb, 0)`.execute(tx);
          throw rolledBack;
        }),
        rolledBack,
      );
      await insert(null, account, 2, 2);
      assert.equal(await dispatcher.poll(), 1);
      assert.deepEqual(got.map((f) => f.n), [2]);
      await dispatcher.stop();
    });

    // PGlite is one connection: no poll can run while a transaction is open, so only PostgreSQL has late committers.
    it('waits for an id held by a transaction in flight, then delivers both in order', { skip: backend !== 'postgres' }, async () => {
      await sql`select setval(pg_get_serial_sequence('outbox', 'id'), (select max(id) from outbox))`.execute(h.node.store.db);
      const { account, got, dispatcher } = await listening(60_000);
      let commit: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (commit = resolve));
      let inserted: () => void = () => undefined;
      const holding = new Promise<void>((resolve) => (inserted = resolve));
      const late = h.node.store.db.transaction().execute(async (tx) => {
        await sql`insert into outbox (account_id, topic, seq, frame, created_at) values (${account}, 'balances', 1, '{"n":1}'::jsonb, 0)`.execute(tx);
        inserted();
        await held;
      });
      await holding;
      await insert(null, account, 2, 2);
      assert.equal(await dispatcher.poll(), 0, 'the later row waits for the id in flight');
      assert.equal(await dispatcher.poll(), 0, 'still in flight: still waiting');
      commit();
      await late;
      assert.equal(await dispatcher.poll(), 2);
      assert.deepEqual(got.map((f) => f.n), [1, 2]);
      await dispatcher.stop();
    });

    it('passes a hole after the grace when a writer in flight at its first sight stays open', { skip: backend !== 'postgres' }, async () => {
      const { account, got, dispatcher } = await listening(300);
      const base = await maxId();
      let finish: () => void = () => undefined;
      const open = new Promise<void>((resolve) => (finish = resolve));
      let started: () => void = () => undefined;
      const writing = new Promise<void>((resolve) => (started = resolve));
      // Writes the outbox (far from the hole) and stays open: it could be the hole's holder as far as the dispatcher can tell.
      const gaveUp = new Error('roll back');
      const writer = h.node.store.db.transaction().execute(async (tx) => {
        await sql`insert into outbox (id, account_id, topic, seq, frame, created_at) values (${base + 1000}, ${account}, 'balances', 9, '{"n":9}'::jsonb, 0)`.execute(tx);
        started();
        await open;
        throw gaveUp;
      });
      await writing;
      await insert(base + 2, account, 2, 2);
      assert.equal(await dispatcher.poll(), 0);
      // Once the dispatcher stops waiting on the gap, a poll delivers the row behind it.
      assert.equal(await eventually(() => dispatcher.poll(), (n) => n === 1, 5_000, 25), 1);
      finish();
      await assert.rejects(writer, gaveUp);
      assert.deepEqual(got.map((f) => f.n), [2]);
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

    /** A dispatcher fed as the runtime feeds it (rows from the commit, else a wake), counting its reads. */
    async function fedByCommits(accountId: string) {
      const got: Array<Record<string, unknown>> = [];
      const waiters: Array<() => void> = [];
      const hub = new SessionHub();
      hub.add({ accountId, deliver: (_topic, frame) => { got.push(frame); waiters.splice(0).forEach((w) => w()); } });
      const dispatcher = new OutboxDispatcher({ db: h.node.store.db, hub, logger: pino({ level: 'silent' }), pollIntervalMs: 1_000_000, gapGraceMs: 60_000 });
      await dispatcher.start();
      let reads = 0;
      const poll = dispatcher.poll.bind(dispatcher);
      dispatcher.poll = () => {
        reads++;
        return poll();
      };
      const unsubscribe = onOutboxCommit(h.node.store.db, (events) => (events ? dispatcher.committed(events) : dispatcher.wake()));
      const frames = async (n: number) => {
        while (got.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      };
      return { got, dispatcher, reads: () => reads, frames, close: async () => { unsubscribe(); await dispatcher.stop(); } };
    }

    it('delivers a local commit from the rows it wrote, without reading them back, and never twice', async () => {
      await sql`select setval(pg_get_serial_sequence('outbox', 'id'), (select max(id) from outbox))`.execute(h.node.store.db);
      const { account, client } = await h.newUser();
      const fed = await fedByCommits(client.login!.userId);
      try {
        await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '7', memo: 'one' });
        await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '8', memo: 'two' });
        await fed.frames(2);
        assert.equal(fed.reads(), 0, 'no outbox read for rows the commit handed over');
        const [first, second] = fed.got as [Record<string, unknown>, Record<string, unknown>];
        assert.equal(first.kind, 'balanceSnapshot');
        assert.equal(second.seq, Number(first.seq) + 1);
        // A read afterwards finds them behind the cursor: nothing is sent again.
        assert.equal(await fed.dispatcher.poll(), 0);
        assert.equal(fed.got.length, 2);
      } finally {
        await fed.close();
      }
    });

    // PGlite is one connection: no transaction can hold an earlier id while another commits.
    it('leaves committed rows behind a hole to the read, which waits for the hole and keeps id order', { skip: backend !== 'postgres' }, async () => {
      await sql`select setval(pg_get_serial_sequence('outbox', 'id'), (select max(id) from outbox))`.execute(h.node.store.db);
      const { account, client } = await h.newUser();
      const userId = client.login!.userId;
      const fed = await fedByCommits(userId);
      let commit: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (commit = resolve));
      let inserted: () => void = () => undefined;
      const holding = new Promise<void>((resolve) => (inserted = resolve));
      // Draws the next id and commits last (not through inTransaction: only a read can see it).
      const late = h.node.store.db.transaction().execute(async (tx) => {
        await sql`insert into outbox (account_id, topic, seq, frame, created_at) values (${userId}, 'balances', null, '{"kind":"late"}'::jsonb, 0)`.execute(tx);
        inserted();
        await held;
      });
      try {
        await holding;
        await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '7', memo: 'after the hole' });
        // The commit handed its row over and woke a read; a read begun after it stops at the hole too.
        assert.equal(await fed.dispatcher.poll(), 0, 'a read delivers nothing past the id in flight');
        assert.equal(fed.got.length, 0, 'the committed row waits behind the id in flight');
        commit();
        await late;
        fed.dispatcher.wake();
        await fed.frames(2);
        assert.deepEqual(fed.got.map((f) => f.kind), ['late', 'balanceSnapshot']);
      } finally {
        commit();
        await late.catch(() => undefined);
        await fed.close();
      }
    });
  });
}
