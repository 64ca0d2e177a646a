/**
 * No silent gaps: `subscribe` with `fromSeq` replays every frame after it from the outbox while
 * the outbox still holds them all, else sends the baseline marked `resync: true`; pruning drops
 * rows by age only.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../helpers/backends.ts';
import { useWsHarness } from '../helpers/ws-harness.ts';
import { pruneOutbox } from '../../src/store/outbox.ts';
import { subscribe, type Frame } from './test-socket.ts';
import { elapse } from '../helpers/eventually.ts';
import { outboxDispatched } from '../helpers/metrics.ts';

for (const backend of backends()) {
  describe(`ws replay [${backend}]`, () => {
    const ws = useWsHarness(backend);
    const { session } = ws;

    const usdc = (f: Frame) => (f.balances as Array<{ token: string; available: string }>).find((b) => b.token === 'USDC')?.available;

    async function userWithSeqs(n: number) {
      const user = await ws.h.newUser();
      for (let i = 1; i <= n; i++) await ws.h.admin.adjustBalance({ address: user.account.address, token: 'USDC', amount: String(i), memo: `step ${i}` });
      return user;
    }

    it('replays every frame after fromSeq with its own seq, then continues live without a gap or duplicate', async () => {
      const { client, account } = await userWithSeqs(5); // balances 1, 3, 6, 10, 15 at seq 1..5
      const socket = await session(client);
      const ack = await subscribe(socket, { topic: 'balances', fromSeq: 3 });
      assert.equal(ack.seq, 5);
      assert.equal('resync' in ack, false);
      const replayed = [await socket.next(), await socket.next()];
      assert.deepEqual(replayed.map((f) => [f.kind, f.seq, usdc(f)]), [['balanceSnapshot', 4, '10'], ['balanceSnapshot', 5, '15']]);
      await ws.h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '1', memo: 'live' });
      const live = await socket.next();
      assert.deepEqual([live.seq, usdc(live)], [6, '16']);
      await outboxDispatched(ws.h.url);
      await socket.quiet();
    });

    it('replays nothing when fromSeq is the current seq', async () => {
      const { client } = await userWithSeqs(2);
      const socket = await session(client);
      const ack = await subscribe(socket, { topic: 'balances', fromSeq: 2 });
      assert.equal(ack.seq, 2);
      await outboxDispatched(ws.h.url);
      await socket.quiet();
    });

    it('sends the baseline with resync: true when the outbox no longer holds the range, or fromSeq is unknown', async () => {
      const { client } = await userWithSeqs(3);
      // Prune everything committed so far: seq 1..3 of this account are gone.
      while ((await pruneOutbox(ws.h.node.store.db, Date.now() + 1, 1000)) > 0);
      const socket = await session(client);
      const ack = await subscribe(socket, { topic: 'balances', fromSeq: 1 });
      assert.deepEqual([ack.seq, ack.resync], [3, true]);
      const baseline = await socket.next();
      assert.deepEqual([baseline.kind, baseline.seq, baseline.resync, usdc(baseline)], ['balanceSnapshot', 3, true, '6']);

      const future = await session(client);
      const futureAck = await subscribe(future, { topic: 'rfqStatus', fromSeq: 99 });
      assert.deepEqual([futureAck.seq, futureAck.resync], [0, true]);
      await outboxDispatched(ws.h.url);
      await future.quiet(); // no open RFQs: an empty baseline, still marked on the ack
    });

    it('refuses fromSeq on a topic without seq, and a malformed fromSeq; the socket stays open', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      const socket = await session(maker.client);
      socket.send({ kind: 'subscribe', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT', fromSeq: 1 });
      assert.equal((await socket.next()).code, 'INVALID_REQUEST');
      socket.send({ kind: 'subscribe', topic: 'balances', fromSeq: -1 });
      assert.equal((await socket.next()).code, 'INVALID_REQUEST');
      socket.send({ kind: 'subscribe', topic: 'balances', fromSeq: 1.5 });
      assert.equal((await socket.next()).code, 'INVALID_REQUEST');
      socket.send({ kind: 'ping' });
      assert.deepEqual(await socket.next(), { kind: 'pong' });
    });

    it('prunes outbox rows by age, oldest first, bounded per call', async () => {
      const db = ws.h.node.store.db;
      while ((await pruneOutbox(db, Date.now() + 1, 1000)) > 0);
      const { account } = await userWithSeqs(3);
      const cutoff = Date.now() + 1;
      await elapse(5, 'the next row is created after the cutoff');
      await ws.h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '1', memo: 'kept' });
      assert.equal(await pruneOutbox(db, cutoff, 2), 2);
      assert.equal(await pruneOutbox(db, cutoff, 2), 1);
      assert.equal(await pruneOutbox(db, cutoff, 2), 0);
      const left = await db.selectFrom('outbox').select(['seq']).execute();
      assert.deepEqual(left.map((r) => Number(r.seq)), [4]);
    });
  });
}
