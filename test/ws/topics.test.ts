/**
 * `/v1/rfq/ws` account topics over a real socket: each topic's baseline after `subscribed`, then
 * pushes with `seq` in commit order (`balances`, `rfqStatus`, `quotes`, `quoteStatus`); `openRfqs`
 * per instrument with maker eligibility; and the server keepalive.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../helpers/backends.ts';
import { useWsHarness } from '../helpers/ws-harness.ts';
import { subscribe, type Frame, type TestSocket } from './test-socket.ts';
import { outboxDispatched } from '../helpers/metrics.ts';

for (const backend of backends()) {
  describe(`ws topics [${backend}]`, () => {
    const ws = useWsHarness(backend);
    const { session } = ws;

    async function fundedTaker() {
      const taker = await ws.h.newUser();
      await ws.h.admin.adjustBalance({ address: taker.account.address, token: 'USDC', amount: '100000', memo: 'funding' });
      await ws.h.admin.adjustBalance({ address: taker.account.address, token: 'BTC', amount: '10', memo: 'funding' });
      return taker;
    }

    async function assertOpen(socket: TestSocket): Promise<void> {
      socket.send({ kind: 'ping' });
      assert.deepEqual(await socket.next(), { kind: 'pong' });
      assert.equal(socket.closeCode, null);
    }

    const ETH_BUY = { instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const };
    const quoteBody = (rfqId: string, price: string) => ({ rfqId, ...ETH_BUY, makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: price } });

    it('balances: a baseline snapshot, then a fresh snapshot with the next seq per committed change', async () => {
      const { client, account } = await ws.h.newUser();
      await ws.h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '100', memo: 'before subscribe' });
      const socket = await session(client);
      const ack = await subscribe(socket, { topic: 'balances' });
      assert.equal(ack.seq, 1);
      const baseline = await socket.next();
      assert.equal(baseline.kind, 'balanceSnapshot');
      const usdc = (b: Frame) => (b.balances as Array<{ token: string; available: string }>).find((x) => x.token === 'USDC');
      assert.equal(usdc(baseline)?.available, '100');
      assert.equal(baseline.seq, 1);
      assert.equal('resync' in baseline, false);

      await ws.h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '25.5', memo: 'after subscribe' });
      await ws.h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '-0.5', memo: 'after subscribe' });
      const pushed = [await socket.next(), await socket.next()];
      assert.deepEqual(pushed.map((f) => [f.kind, usdc(f)?.available, f.seq]), [['balanceSnapshot', '125.5', 2], ['balanceSnapshot', '125', 3]]);

      socket.send({ kind: 'unsubscribe', topic: 'balances' });
      assert.deepEqual(await socket.next(), { kind: 'unsubscribed', topic: 'balances' });
      await ws.h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '1', memo: 'after unsubscribe' });
      await outboxDispatched(ws.h.url);
      await socket.quiet();
    });

    it('rfqStatus: a baseline frame per open RFQ (not terminal ones), then one per transition with the full Rfq', async () => {
      const taker = await fundedTaker();
      const open = await taker.client.createRfq({ ...ETH_BUY, baseQty: '1', quoteLimit: '10000' });
      const cancelled = await taker.client.createRfq({ ...ETH_BUY, baseQty: '2', quoteLimit: '10000' });
      await taker.client.cancelRfq(cancelled.rfqId);
      const other = await session((await ws.h.newUser()).client);
      await subscribe(other, { topic: 'rfqStatus' });

      const socket = await session(taker.client);
      const ack = await subscribe(socket, { topic: 'rfqStatus' });
      const baseline = await socket.next();
      assert.equal(baseline.kind, 'rfqStatus');
      assert.equal(baseline.id, open.rfqId);
      assert.equal(baseline.status, 'PENDING');
      assert.equal(baseline.baseQty, '1');
      assert.equal(baseline.quoteLimit, '10000');
      assert.equal(baseline.seq, ack.seq);

      const rfq = await taker.client.getRfq(open.rfqId);
      await taker.client.cancelRfq(open.rfqId);
      const transition = await socket.next();
      assert.equal(transition.kind, 'rfqStatus');
      assert.equal(transition.id, open.rfqId);
      assert.equal(transition.status, 'CANCELLED');
      assert.equal(transition.seq, (ack.seq as number) + 1);
      // The full Rfq: every field the REST read has, with the new status.
      for (const key of Object.keys(rfq)) assert.ok(key in transition, `rfqStatus lacks ${key}`);
      assert.equal(typeof transition.failureReason, 'string');
      await outboxDispatched(ws.h.url);
      await other.quiet();
    });

    it('quotes: a baseline of the quotes on open RFQs in their reached status, then one per quote or re-quote; anonymous', async () => {
      const taker = await fundedTaker();
      const makerA = await ws.h.newMaker();
      const makerB = await ws.h.newMaker();
      const rfq = await taker.client.createRfq({ ...ETH_BUY, baseQty: '1', quoteLimit: '10000' });
      const first = await makerA.client.submitQuote(quoteBody(rfq.rfqId, '3000'));
      await makerA.client.submitQuote(quoteBody(rfq.rfqId, '2990')); // re-quote before subscribing
      const second = await makerB.client.submitQuote(quoteBody(rfq.rfqId, '3010'));
      const closed = await taker.client.createRfq({ ...ETH_BUY, baseQty: '1', quoteLimit: '10000' });
      await makerA.client.submitQuote(quoteBody(closed.rfqId, '3000'));
      await taker.client.cancelRfq(closed.rfqId); // its quote is not on an open RFQ any more

      const socket = await session(taker.client);
      const ack = await subscribe(socket, { topic: 'quotes' });
      const baseline = [await socket.next(), await socket.next()];
      assert.deepEqual(baseline.map((f) => [f.kind, f.quoteId, f.makerReceives && (f.makerReceives as Frame).amount, f.status, f.seq]), [
        ['quoteUpdate', first.quoteId, '2990', 'SUBMITTED', ack.seq],
        ['quoteUpdate', second.quoteId, '3010', 'SUBMITTED', ack.seq],
      ]);
      for (const frame of baseline) {
        for (const hidden of ['makerId', 'maker', 'settlementMode', 'permitSignature', 'spender']) assert.equal(hidden in frame, false, `quote shows ${hidden}`);
      }
      await outboxDispatched(ws.h.url);
      await socket.quiet();

      await makerB.client.submitQuote(quoteBody(rfq.rfqId, '2980'));
      const requote = await socket.next();
      assert.equal(requote.kind, 'quoteUpdate');
      assert.equal(requote.quoteId, second.quoteId);
      assert.equal((requote.makerReceives as Frame).amount, '2980');
      assert.equal(requote.seq, (ack.seq as number) + 1);
    });

    it('quoteStatus: a replay of the maker\'s recent quotes, then one per transition in commit order', async () => {
      const taker = await fundedTaker();
      const maker = await ws.h.newMaker();
      const rfq = await taker.client.createRfq({ ...ETH_BUY, baseQty: '1', quoteLimit: '10000' });
      const quote = await maker.client.submitQuote(quoteBody(rfq.rfqId, '3000'));
      const makerSocket = await session(maker.client);
      const ack = await subscribe(makerSocket, { topic: 'quoteStatus' });
      const replayed = await makerSocket.next();
      assert.deepEqual([replayed.kind, replayed.quoteId, replayed.status, replayed.seq], ['quoteStatus', quote.quoteId, 'SUBMITTED', ack.seq]);
      assert.equal(replayed.settlementMode, 'permit2');

      await taker.client.accept(rfq.rfqId, { quoteId: quote.quoteId, expectedVersion: quote.version });
      const selected = await makerSocket.next();
      assert.deepEqual([selected.kind, selected.quoteId, selected.status, selected.seq], ['quoteStatus', quote.quoteId, 'SELECTED', (ack.seq as number) + 1]);
      assert.equal(typeof selected.settlementDeadline, 'number');

      // A reconnecting maker gets the quote again in its reached state.
      const again = await session(maker.client);
      await subscribe(again, { topic: 'quoteStatus' });
      const latest = await again.next();
      assert.deepEqual([latest.quoteId, latest.status, latest.settlementDeadline], [quote.quoteId, 'SELECTED', selected.settlementDeadline]);
    });

    it('pushes quoteUpdate to the RFQ owner and quoteStatus to the maker, each with seq; nothing to others', async () => {
      const taker = await fundedTaker();
      const maker = await ws.h.newMaker();
      const bystander = await session((await ws.h.newUser()).client);
      await subscribe(bystander, { topic: 'quotes' });
      const takerSocket = await session(taker.client);
      await subscribe(takerSocket, { topic: 'quotes' });
      const makerSocket = await session(maker.client);
      await subscribe(makerSocket, { topic: 'quoteStatus' });

      const rfq = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '10000' });
      const quote = await maker.client.submitQuote({ rfqId: rfq.rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4500' } });
      const update = await takerSocket.next();
      assert.equal(update.kind, 'quoteUpdate', JSON.stringify(update));
      assert.equal(update.quoteId, quote.quoteId);
      assert.equal(typeof update.seq, 'number');
      const status = await makerSocket.next();
      assert.equal(status.kind, 'quoteStatus', JSON.stringify(status));
      assert.equal(status.quoteId, quote.quoteId);

      // A maker cancel notifies both sides (spec: the maker by quoteStatus, the owner by quotes).
      await maker.client.cancelQuote(quote.quoteId);
      assert.equal((await makerSocket.next()).status, 'CANCELLED');
      const cancelled = await takerSocket.next();
      assert.equal(cancelled.status, 'CANCELLED');
      assert.equal(cancelled.seq, (update.seq as number) + 1);
      await outboxDispatched(ws.h.url);
      await bystander.quiet();
    });

    it('refuses quoteStatus to a session without a maker-scoped credential; the socket stays open', async () => {
      const socket = await session((await ws.h.newUser()).client);
      socket.send({ kind: 'subscribe', topic: 'quoteStatus' });
      const error = await socket.next();
      assert.equal(error.kind, 'error');
      assert.equal(error.code, 'UNSUPPORTED_CHANNEL');
      await assertOpen(socket);
    });

    it('delivers openRfqs per instrument to eligible makers only, without seq', async () => {
      const taker = await fundedTaker();
      const ethMaker = await ws.h.newMaker(['ETH-USDC']);
      const btcMaker = await ws.h.newMaker(['BTC-USDC']);
      const eth = await session(ethMaker.client);
      const btc = await session(btcMaker.client);

      // Not approved for the pair, unknown instrument, missing selector, plain user.
      eth.send({ kind: 'subscribe', topic: 'openRfqs', instrumentId: 'BTC-USDC-SPOT' });
      assert.equal((await eth.next()).code, 'UNSUPPORTED_CHANNEL');
      eth.send({ kind: 'subscribe', topic: 'openRfqs', instrumentId: 'DOGE-USDC-SPOT' });
      assert.equal((await eth.next()).code, 'UNSUPPORTED_CHANNEL');
      eth.send({ kind: 'subscribe', topic: 'openRfqs' });
      assert.equal((await eth.next()).code, 'INVALID_REQUEST');
      await assertOpen(eth);
      const user = await session((await ws.h.newUser()).client);
      user.send({ kind: 'subscribe', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      assert.equal((await user.next()).code, 'UNSUPPORTED_CHANNEL');
      await assertOpen(user);

      assert.deepEqual(await subscribe(eth, { topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' }), { kind: 'subscribed', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      await subscribe(btc, { topic: 'openRfqs', instrumentId: 'BTC-USDC-SPOT' });
      await outboxDispatched(ws.h.url);
      await eth.quiet(); // no baseline by spec

      const ethRfq = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '10000' });
      const frame = await eth.next();
      assert.equal(frame.kind, 'rfq', JSON.stringify(frame));
      assert.equal(frame.id, ethRfq.rfqId);
      assert.equal(frame.instrumentId, 'ETH-USDC-SPOT');
      assert.equal('seq' in frame, false);
      assert.equal('quoteLimit' in frame, false);
      await outboxDispatched(ws.h.url);
      await btc.quiet();

      const btcRfq = await taker.client.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'SELL', baseQty: '1' });
      const btcFrame = await btc.next();
      assert.equal(btcFrame.kind, 'rfq');
      assert.equal(btcFrame.id, btcRfq.rfqId);
      await outboxDispatched(ws.h.url);
      await eth.quiet();

      eth.send({ kind: 'unsubscribe', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      assert.deepEqual(await eth.next(), { kind: 'unsubscribed', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '10000' });
      await outboxDispatched(ws.h.url);
      await eth.quiet();
      await user.quiet();
    });

    // An empty settlement-mode list cannot be stored (the admin API requires one), so only the
    // inactive branch is reachable here; the no-mode check stays in code for direct writes.
    it('refuses openRfqs to a maker made inactive after connecting', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      const socket = await session(maker.client);
      await ws.h.admin.putMaker(maker.account.address, { active: false, pairs: ['ETH-USDC'], settlementModes: ['permit2'] });
      socket.send({ kind: 'subscribe', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      assert.equal((await socket.next()).code, 'UNSUPPORTED_CHANNEL');
      await assertOpen(socket);
    });

    it('sends server pings and closes a session that answers none of two consecutive pings', async () => {
      const context = ws.h.node.context;
      const configured = context.ws;
      // The interval is read when the session authenticates.
      const shortened = { ...configured, pingIntervalMs: 150 };
      context.ws = shortened;
      let socket: TestSocket;
      try {
        socket = await session((await ws.h.newUser()).client);
      } finally {
        context.ws = configured;
      }
      assert.deepEqual(await socket.next(), { kind: 'ping' });
      socket.send({ kind: 'pong' });
      assert.deepEqual(await socket.next(), { kind: 'ping' });
      socket.send({ kind: 'pong' });
      const started = Date.now();
      // Now stay silent: two more pings, then the close.
      assert.deepEqual(await socket.next(), { kind: 'ping' });
      assert.deepEqual(await socket.next(), { kind: 'ping' });
      assert.equal(await socket.closed, 4002);
      assert.ok(Date.now() - started >= 250, 'closed too early');
    });
  });
}
