/**
 * The client's WebSocket session (src/client/ws-session.ts) against a real node over loopback:
 * auth, subscribe and refusals, a quoteUpdate pushed by a maker's REST quote, reconnect after the
 * server drops the socket (re-auth, re-subscribe with `fromSeq`), dead-server detection, and
 * giving up on a credential that no longer authenticates.
 */
import { describe, it, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { WebSocket } from 'ws';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { RfqWsSession, SubscriptionRefused } from '../../src/client/ws-session.ts';
import type { QuoteUpdateFrame, RfqStatusFrame } from '../../src/client/frames.ts';
import type { RfqClient } from '../../src/client/rfq-client.ts';
import { waitUntil } from '../helpers/eventually.ts';

const FAST = { backoff: { initialDelayMs: 10, maxDelayMs: 50 } };

/** Resolves with the first emission of `event` (with a bound, so a missing event fails the test). */
function once<T>(session: RfqWsSession, event: 'open' | 'disconnected' | 'closed', timeoutMs = 10_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    session.once(event, (value: unknown) => {
      clearTimeout(timer);
      resolve(value as T);
    });
  });
}

for (const backend of backends()) {
  describe(`client WebSocket session [${backend}]`, () => {
    let h: Harness;
    const sessions: RfqWsSession[] = [];
    /** Frames the server received, per server-side socket, to see what the client sent. */
    const received = new Map<WebSocket, Array<Record<string, unknown>>>();
    before(async () => {
      h = await startHarness(backend);
      (h.node.app as unknown as { websocketServer: import('ws').WebSocketServer }).websocketServer.on('connection', (socket) => {
        const frames: Array<Record<string, unknown>> = [];
        received.set(socket, frames);
        socket.on('message', (data) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
      });
    });
    // Each test starts with no other session open, so the server-side sockets it sees are its own.
    afterEach(() => {
      for (const session of sessions.splice(0)) session.close();
    });
    after(async () => h.close());

    const serverSockets = () => [...(h.node.app as unknown as { websocketServer: import('ws').WebSocketServer }).websocketServer.clients];

    function open(client: RfqClient, options: Parameters<RfqClient['wsSession']>[0] = FAST): RfqWsSession {
      const session = client.wsSession(options);
      sessions.push(session);
      return session;
    }

    async function takerWithRfq() {
      const taker = await h.newUser();
      await h.fund(taker.account.address, { USDC: '100000' });
      return taker;
    }

    function quote(rfqId: string, price: string) {
      return { rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: price } };
    }

    it('authenticates, subscribes, and receives quoteUpdate and rfqStatus frames', async () => {
      const taker = await takerWithRfq();
      const maker = await h.newMaker();
      const session = open(taker.client);
      const health = await session.connect();
      assert.deepEqual(health, { kind: 'health', userId: taker.client.login!.userId, isMaker: false, cancelOnDisconnect: false });
      assert.equal(session.state, 'open');
      await session.subscribe('quotes');
      await session.subscribe('rfqStatus');

      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '5000' });
      const pushed = session.next<QuoteUpdateFrame>((f) => f.kind === 'quoteUpdate', 5000);
      const submitted = await maker.client.submitQuote(quote(rfqId, '3000'));
      const update = await pushed;
      assert.equal(update.quoteId, submitted.quoteId);
      assert.equal(update.rfqId, rfqId);
      assert.equal(update.takerTotal, '3007.5');
      assert.equal(session.lastSeq('quotes'), update.seq);

      const status = session.next<RfqStatusFrame>((f) => f.kind === 'rfqStatus' && (f as RfqStatusFrame).status === 'CANCELLED', 5000);
      await taker.client.cancelRfq(rfqId);
      assert.equal((await status).id, rfqId);
    });

    it('rejects a refused subscribe with the server code; the session, its keepalive and other topics go on', async () => {
      const { client } = await h.newUser();
      const session = open(client, { ...FAST, pingIntervalMs: 50 });
      await session.connect();
      await assert.rejects(session.subscribe('quoteStatus'), (error: unknown) => error instanceof SubscriptionRefused && error.code === 'UNSUPPORTED_CHANNEL');
      await assert.rejects(session.subscribe('openRfqs'), (error: unknown) => error instanceof SubscriptionRefused && error.code === 'INVALID_REQUEST');
      await session.subscribe('balances');
      assert.deepEqual(session.subscriptions(), [{ topic: 'balances' }]);
      // The client's own keepalive pings are answered.
      await session.next((f) => f.kind === 'pong', 5000);
      assert.equal(session.state, 'open');
    });

    it('reconnects after the server drops the socket, re-authenticates and re-subscribes with fromSeq', async () => {
      const taker = await takerWithRfq();
      const maker = await h.newMaker();
      const session = open(taker.client);
      await session.connect();
      await session.subscribe('quotes');
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '5000' });
      const first = session.next<QuoteUpdateFrame>((f) => f.kind === 'quoteUpdate', 5000);
      await maker.client.submitQuote(quote(rfqId, '3000'));
      const seq = (await first).seq!;

      const before = new Set(serverSockets());
      const disconnected = once<{ code: number }>(session, 'disconnected');
      const reopened = once(session, 'open');
      for (const socket of serverSockets()) socket.terminate();
      assert.equal((await disconnected).code, 1006);
      await reopened;
      assert.equal(session.state, 'open');

      // The new server-side socket saw auth, then the held topic with the last seq delivered.
      const fresh = serverSockets().filter((socket) => !before.has(socket));
      assert.equal(fresh.length, 1);
      const resubscribe = await until(() => received.get(fresh[0]!)!.find((f) => f.kind === 'subscribe'));
      assert.deepEqual(resubscribe, { kind: 'subscribe', topic: 'quotes', fromSeq: seq });
      assert.equal(received.get(fresh[0]!)![0]!.kind, 'auth');

      const second = session.next<QuoteUpdateFrame>((f) => f.kind === 'quoteUpdate' && (f as QuoteUpdateFrame).makerReceives.amount === '2900', 5000);
      await maker.client.submitQuote(quote(rfqId, '2900'));
      assert.equal((await second).seq, seq + 1, 'the re-quote arrives on the restored subscription');
      await taker.client.cancelRfq(rfqId);
    });

    it('before any frame, resumes from the seq of the subscribe ack, so what was missed is replayed', async () => {
      const taker = await takerWithRfq();
      // Two rfqStatus frames committed and no RFQ left open: the topic's baseline is empty.
      const { rfqId: gone } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '5000' });
      await taker.client.cancelRfq(gone);
      const session = open(taker.client);
      await session.connect();
      await session.subscribe('rfqStatus');
      assert.equal(session.lastSeq('rfqStatus'), 2, 'the ack carried the topic seq');

      const before = new Set(serverSockets());
      const reopened = once(session, 'open');
      for (const socket of serverSockets()) socket.terminate();
      await reopened;
      const fresh = serverSockets().filter((socket) => !before.has(socket));
      const resubscribe = await until(() => received.get(fresh[0]!)!.find((f) => f.kind === 'subscribe'));
      assert.deepEqual(resubscribe, { kind: 'subscribe', topic: 'rfqStatus', fromSeq: 2 });

      const next = session.next<RfqStatusFrame>((f) => f.kind === 'rfqStatus', 5000);
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1', quoteLimit: '5000' });
      const frame = await next;
      assert.equal(frame.id, rfqId);
      assert.equal(frame.seq, 3);
      await taker.client.cancelRfq(rfqId);
    });

    it('detects a server that stops answering and reconnects', async () => {
      const { client } = await h.newUser();
      const session = open(client, { ...FAST, pingIntervalMs: 50 });
      await session.connect();
      await session.subscribe('balances');
      const before = new Set(serverSockets());
      const disconnected = once<{ code: number }>(session, 'disconnected');
      const reopened = once(session, 'open');
      // The server-side socket stops reading: the client's pings go unanswered.
      for (const socket of before) (socket as unknown as { pause(): void }).pause();
      assert.equal((await disconnected).code, 1006);
      await reopened;
      const balances = session.next((f) => f.kind === 'balanceSnapshot', 5000);
      await h.fund(client.login!.account, { USDC: '5' });
      await balances;
      for (const socket of before) socket.terminate();
    });

    it('fails connect() on a bad credential, and gives up reconnecting when the key is revoked', async () => {
      const { client } = await h.newUser();
      const forged = new RfqWsSession({ baseUrl: h.url, credentials: { accessKey: client.credentials!.accessKey, secret: Buffer.from('wrong').toString('base64') } });
      sessions.push(forged);
      await assert.rejects(forged.connect(), /could not open/);
      assert.equal(forged.state, 'closed');

      const session = open(client);
      await session.connect();
      await client.revokeApiKey(client.credentials!.accessKey);
      const closed = once<{ reason: string; error?: Error }>(session, 'closed');
      for (const socket of serverSockets()) socket.terminate();
      const final = await closed;
      assert.equal(final.reason, 'authentication refused');
      assert.match(final.error!.message, /3 times/);
      assert.equal(session.state, 'closed');
    });
  });
}

async function until<T>(read: () => T | undefined, timeoutMs = 5000): Promise<T> {
  return (await waitUntil(read, (value) => value !== undefined, 'the frame arrives', { timeoutMs, pollMs: 10 })) as T;
}
