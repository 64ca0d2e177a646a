/**
 * Cancel on disconnect on one node (DESIGN.md section 11), on each backend: `health`
 * echoes whether the session holds it; when the maker's last flagged session closes, its
 * `SUBMITTED` quotes on open RFQs are cancelled as by its own cancel (the taker gets `quoteUpdate`)
 * within 2 s while a `SELECTED` quote is untouched; a session without the flag cancels nothing;
 * the operator sees the live sessions.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../helpers/backends.ts';
import { useWsHarness } from '../helpers/ws-harness.ts';
import { flaggedSession, fundedTaker, quotedRfq, quoteStatusWithin } from '../helpers/protection.ts';
import { authFrame, openSession, subscribe } from './test-socket.ts';
import { waitUntil } from '../helpers/eventually.ts';

for (const backend of backends()) {
  describe(`cancel on disconnect [${backend}]`, () => {
    const ws = useWsHarness(backend);
    const { sockets } = ws;

    it('health echoes the flag: true for a maker credential that asked, false otherwise', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      const taker = await ws.h.newUser();
      assert.equal((await flaggedSession(ws.h.url, maker.client, sockets)).health.cancelOnDisconnect, true);
      assert.equal((await flaggedSession(ws.h.url, taker.client, sockets)).health.cancelOnDisconnect, false);
      const plain = await ws.connect();
      plain.send(authFrame(maker.client));
      assert.equal((await plain.next()).cancelOnDisconnect, false);
      const bad = await ws.connect();
      bad.send({ ...authFrame(maker.client), cancelOnDisconnect: 'yes' });
      assert.equal((await bad.next()).code, 'AUTH_REQUIRED');
    });

    it('the last flagged session closing cancels the open quotes and tells the taker; the selected quote stays', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      const taker = await fundedTaker(ws.h);
      const takerSocket = await openSession(ws.h.url, taker, sockets);
      await subscribe(takerSocket, { topic: 'quotes' });
      const { socket } = await flaggedSession(ws.h.url, maker.client, sockets);
      const open = await quotedRfq(taker, maker.client);
      const won = await quotedRfq(taker, maker.client);
      await taker.accept(won.rfqId, { quoteId: won.quoteId });
      const operator = await ws.h.admin.getMaker(maker.account.address);
      assert.deepEqual(operator.sessions.map((s) => s.cancelOnDisconnect), [true]);
      assert.equal(operator.sessions[0]!.nodeId, ws.h.node.context.presence.nodeId);
      takerSocket.frames.length = 0;

      const closedAt = Date.now();
      socket.close();
      const update = await takerSocket.next((f) => f.kind === 'quoteUpdate' && f.status === 'CANCELLED', 2000);
      assert.equal(update.quoteId, open.quoteId);
      assert.ok(Date.now() - closedAt < 2000);
      assert.equal(await quoteStatusWithin(maker.client, open.quoteId, 'CANCELLED', 0), 'CANCELLED');
      assert.equal(await quoteStatusWithin(maker.client, won.quoteId, 'SELECTED', 0), 'SELECTED');
      assert.deepEqual((await ws.h.admin.getMaker(maker.account.address)).sessions, []);
    });

    it('a session without the flag cancels nothing when it closes', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      const taker = await fundedTaker(ws.h);
      const socket = await openSession(ws.h.url, maker.client, sockets);
      const open = await quotedRfq(taker, maker.client);
      socket.close();
      await socket.closed;
      // The session's end is in the store, and a protection sweep begun after it has ended: a
      // cancel on disconnect would have run in it.
      await waitUntil(async () => (await ws.h.admin.getMaker(maker.account.address)).sessions, (live) => live.length === 0, 'the session ended in the store');
      await ws.h.node.context.presence.afterSweep();
      assert.equal(await quoteStatusWithin(maker.client, open.quoteId, 'SUBMITTED', 0), 'SUBMITTED');
    });
  });
}
