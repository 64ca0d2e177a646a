/**
 * `/v1/rfq/ws` topics over a real socket: `quotes` and `quoteStatus` pushes (no baselines in
 * this slice), `openRfqs` per instrument with maker eligibility, and the server keepalive.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import type { RfqClient } from '../../src/client/rfq-client.ts';
import { TestSocket, openSession } from './test-socket.ts';

for (const backend of backends()) {
  describe(`ws topics [${backend}]`, () => {
    let h: Harness;
    const sockets: TestSocket[] = [];
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => {
      for (const s of sockets) s.close();
      await h.close();
    });

    const session = (client: RfqClient) => openSession(h.url, client, sockets);

    async function fundedTaker() {
      const taker = await h.newUser();
      await h.admin.adjustBalance({ address: taker.account.address, token: 'USDC', amount: '100000', memo: 'funding' });
      await h.admin.adjustBalance({ address: taker.account.address, token: 'BTC', amount: '10', memo: 'funding' });
      return taker;
    }

    async function assertOpen(socket: TestSocket): Promise<void> {
      socket.send({ kind: 'ping' });
      assert.deepEqual(await socket.next(), { kind: 'pong' });
      assert.equal(socket.closeCode, null);
    }

    it('pushes quoteUpdate to the RFQ owner and quoteStatus to the maker, each with seq', async () => {
      const taker = await fundedTaker();
      const maker = await h.newMaker();
      const bystander = await session((await h.newUser()).client);
      bystander.send({ kind: 'subscribe', topic: 'quotes' });
      assert.deepEqual(await bystander.next(), { kind: 'subscribed', topic: 'quotes' });

      const takerSocket = await session(taker.client);
      takerSocket.send({ kind: 'subscribe', topic: 'quotes' });
      assert.deepEqual(await takerSocket.next(), { kind: 'subscribed', topic: 'quotes' });
      const makerSocket = await session(maker.client);
      makerSocket.send({ kind: 'subscribe', topic: 'quoteStatus' });
      assert.deepEqual(await makerSocket.next(), { kind: 'subscribed', topic: 'quoteStatus' });

      const rfq = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '10000' });
      const quote = await maker.client.submitQuote({ rfqId: rfq.rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4500' } });

      const update = await takerSocket.next();
      assert.equal(update.kind, 'quoteUpdate', JSON.stringify(update));
      assert.equal(update.quoteId, quote.quoteId);
      assert.equal(update.rfqId, rfq.rfqId);
      assert.equal(typeof update.seq, 'number');
      const status = await makerSocket.next();
      assert.equal(status.kind, 'quoteStatus', JSON.stringify(status));
      assert.equal(status.quoteId, quote.quoteId);
      assert.equal(typeof status.seq, 'number');

      // A re-quote is a second push with the next seq.
      await maker.client.submitQuote({ rfqId: rfq.rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4400' } });
      const second = await takerSocket.next((f) => f.kind === 'quoteUpdate');
      assert.equal(second.seq, (update.seq as number) + 1);

      await bystander.quiet(300);
    });

    it('refuses quoteStatus to a session without a maker-scoped credential; the socket stays open', async () => {
      const socket = await session((await h.newUser()).client);
      socket.send({ kind: 'subscribe', topic: 'quoteStatus' });
      const error = await socket.next();
      assert.equal(error.kind, 'error');
      assert.equal(error.code, 'UNSUPPORTED_CHANNEL');
      await assertOpen(socket);
    });

    it('delivers openRfqs per instrument to eligible makers only, without seq', async () => {
      const taker = await fundedTaker();
      const ethMaker = await h.newMaker(['ETH-USDC']);
      const btcMaker = await h.newMaker(['BTC-USDC']);
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
      const user = await session((await h.newUser()).client);
      user.send({ kind: 'subscribe', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      assert.equal((await user.next()).code, 'UNSUPPORTED_CHANNEL');
      await assertOpen(user);

      eth.send({ kind: 'subscribe', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      assert.deepEqual(await eth.next(), { kind: 'subscribed', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      btc.send({ kind: 'subscribe', topic: 'openRfqs', instrumentId: 'BTC-USDC-SPOT' });
      assert.deepEqual(await btc.next(), { kind: 'subscribed', topic: 'openRfqs', instrumentId: 'BTC-USDC-SPOT' });

      const ethRfq = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '10000' });
      const frame = await eth.next();
      assert.equal(frame.kind, 'rfq', JSON.stringify(frame));
      assert.equal(frame.id, ethRfq.rfqId);
      assert.equal(frame.instrumentId, 'ETH-USDC-SPOT');
      assert.equal('seq' in frame, false);
      await btc.quiet(300);

      const btcRfq = await taker.client.createRfq({ instrumentId: 'BTC-USDC-SPOT', side: 'SELL', baseQty: '1' });
      const btcFrame = await btc.next();
      assert.equal(btcFrame.kind, 'rfq');
      assert.equal(btcFrame.id, btcRfq.rfqId);
      await eth.quiet(300);

      eth.send({ kind: 'unsubscribe', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      assert.deepEqual(await eth.next(), { kind: 'unsubscribed', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '10000' });
      await eth.quiet(300);
      await user.quiet(0);
    });

    // An empty settlement-mode list cannot be stored (the admin API requires one), so only the
    // inactive branch is reachable here; the no-mode check stays in code for direct writes.
    it('refuses openRfqs to a maker made inactive after connecting', async () => {
      const maker = await h.newMaker(['ETH-USDC']);
      const socket = await session(maker.client);
      await h.admin.putMaker(maker.account.address, { active: false, pairs: ['ETH-USDC'], settlementModes: ['permit2'] });
      socket.send({ kind: 'subscribe', topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
      assert.equal((await socket.next()).code, 'UNSUPPORTED_CHANNEL');
      await assertOpen(socket);
    });

    it('sends server pings and closes a session that answers none of two consecutive pings', async () => {
      const context = h.node.context;
      const configured = context.ws;
      // The interval is read when the session authenticates.
      const shortened = { ...configured, pingIntervalMs: 150 };
      context.ws = shortened;
      let socket: TestSocket;
      try {
        socket = await session((await h.newUser()).client);
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
