/**
 * `/v1/rfq/ws` over a real socket: the auth handshake (success, bad signature, deadline),
 * ping/pong, recoverable errors, and outbox-driven pushes for `balances` and `rfqStatus`.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { TestSocket, authFrame, openSession, openSocket, signedAt, type Frame } from './test-socket.ts';
import type { RfqClient } from '../../src/client/rfq-client.ts';

for (const backend of backends()) {
  describe(`ws sessions [${backend}]`, () => {
    let h: Harness;
    const sockets: TestSocket[] = [];
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => {
      for (const s of sockets) s.close();
      await h.close();
    });

    const connect = () => openSocket(h.url, sockets);
    const session = (client: RfqClient) => openSession(h.url, client, sockets);

    it('authenticates with a signed auth frame and answers health', async () => {
      const { client } = await h.newUser();
      const socket = await connect();
      socket.send(authFrame(client));
      assert.deepEqual(await socket.next(), { kind: 'health', userId: client.login!.userId, isMaker: false });
    });

    it('refuses a bad signature with AUTH_REQUIRED and closes 4001', async () => {
      const { client } = await h.newUser();
      const socket = await connect();
      socket.send(authFrame(client, signedAt(), Buffer.alloc(32, 7).toString('base64')));
      const error = await socket.next();
      assert.equal(error.kind, 'error');
      assert.equal(error.code, 'AUTH_REQUIRED');
      assert.equal(typeof error.message, 'string');
      assert.equal(await socket.closed, 4001);
    });

    it('refuses a first frame that is not auth (before authentication)', async () => {
      const socket = await connect();
      socket.send({ kind: 'ping' });
      assert.equal((await socket.next()).code, 'AUTH_REQUIRED');
      assert.equal(await socket.closed, 4001);
    });

    it('closes a socket that sends no auth within the handshake deadline', async () => {
      // The deadline is read per connection from the context (default 5 s); shorten it here.
      const context = h.node.context;
      const configured = context.ws;
      context.ws = { ...configured, handshakeDeadlineMs: 200 };
      try {
        const started = Date.now();
        const socket = await connect();
        const error = await socket.next(() => true, 3000);
        assert.equal(error.code, 'AUTH_REQUIRED');
        assert.equal(await socket.closed, 4001);
        assert.ok(Date.now() - started >= 150, 'closed too early');
      } finally {
        context.ws = configured;
      }
    });

    it('answers ping with pong, ignores pong, and keeps the socket open on bad frames', async () => {
      const { client } = await h.newUser();
      const socket = await session(client);
      socket.send({ kind: 'pong' });
      socket.send({ kind: 'ping' });
      assert.deepEqual(await socket.next(), { kind: 'pong' }); // the unsolicited pong got no answer
      socket.send('{"kind":');
      const malformed = await socket.next();
      assert.equal(malformed.kind, 'error');
      assert.equal(malformed.code, 'INVALID_REQUEST');
      socket.send({ kind: 'teleport' });
      assert.equal((await socket.next()).code, 'INVALID_REQUEST');
      socket.send({ kind: 'subscribe', topic: 'nonsense' });
      const unsupported = await socket.next();
      assert.equal(unsupported.kind, 'error');
      assert.equal(unsupported.code, 'UNSUPPORTED_CHANNEL');
      socket.send({ kind: 'unsubscribe', topic: 'balances' });
      assert.deepEqual(await socket.next(), { kind: 'unsubscribed', topic: 'balances' });
      socket.send({ kind: 'ping' });
      assert.deepEqual(await socket.next(), { kind: 'pong' });
      assert.equal(socket.closeCode, null);
    });

    it('sends a balances baseline, then a pushed snapshot with seq per committed change', async () => {
      const { client, account } = await h.newUser();
      await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '100', memo: 'before subscribe' });
      const socket = await session(client);
      socket.send({ kind: 'subscribe', topic: 'balances' });
      assert.deepEqual(await socket.next(), { kind: 'subscribed', topic: 'balances' });
      const baseline = await socket.next();
      assert.equal(baseline.kind, 'balanceSnapshot');
      const usdc = (b: Frame) => (b.balances as Array<{ token: string; available: string }>).find((x) => x.token === 'USDC');
      assert.equal(usdc(baseline)?.available, '100');
      assert.equal(baseline.seq, 1);

      await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '25.5', memo: 'after subscribe' });
      const pushed = await socket.next();
      assert.equal(pushed.kind, 'balanceSnapshot');
      assert.equal(usdc(pushed)?.available, '125.5');
      assert.equal(pushed.seq, 2);

      socket.send({ kind: 'unsubscribe', topic: 'balances' });
      assert.deepEqual(await socket.next(), { kind: 'unsubscribed', topic: 'balances' });
      await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '1', memo: 'after unsubscribe' });
      await socket.quiet(300);
    });

    it('pushes rfqStatus PENDING for an RFQ the account creates, and nothing to other accounts', async () => {
      const { client, account } = await h.newUser();
      const other = await session((await h.newUser()).client);
      other.send({ kind: 'subscribe', topic: 'rfqStatus' });
      assert.deepEqual(await other.next(), { kind: 'subscribed', topic: 'rfqStatus' });
      await h.admin.adjustBalance({ address: account.address, token: 'USDC', amount: '1000', memo: 'funding' });
      const socket = await session(client);
      socket.send({ kind: 'subscribe', topic: 'rfqStatus' });
      assert.deepEqual(await socket.next(), { kind: 'subscribed', topic: 'rfqStatus' });
      const rfq = await client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '100' });
      const status = await socket.next();
      assert.equal(status.kind, 'rfqStatus');
      assert.equal(status.id, rfq.rfqId);
      assert.equal(status.status, 'PENDING');
      assert.equal(typeof status.seq, 'number');
      await other.quiet(300);
    });
  });
}
