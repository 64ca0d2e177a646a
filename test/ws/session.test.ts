/**
 * `/v1/rfq/ws` over a real socket: the auth handshake (success, bad signature, deadline), the
 * connection caps, the inbound rate limit, ping/pong, recoverable errors, the bounded send buffer
 * (slow consumer) and the shutdown close code.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { backends } from '../helpers/backends.ts';
import { startHarness } from '../helpers/harness.ts';
import { useWsHarness } from '../helpers/ws-harness.ts';
import { authFrame, openSession, signedAt, subscribe } from './test-socket.ts';
import { elapse, eventually, waitFor } from '../helpers/eventually.ts';

for (const backend of backends()) {
  describe(`ws sessions [${backend}]`, () => {
    const ws = useWsHarness(backend);
    const { sockets, connect, session, withLimits } = ws;

    it('authenticates with a signed auth frame and answers health', async () => {
      const { client } = await ws.h.newUser();
      const socket = await connect();
      socket.send(authFrame(client));
      assert.deepEqual(await socket.next(), { kind: 'health', userId: client.login!.userId, isMaker: false, cancelOnDisconnect: false });
    });

    it('refuses a bad signature with AUTH_REQUIRED and closes 4001', async () => {
      const { client } = await ws.h.newUser();
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
      const context = ws.h.node.context;
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
      const { client } = await ws.h.newUser();
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

    /** Runs `body` with some WebSocket limits changed (they are read per connection or per send). */
    it('caps unauthenticated connections per source: AUTH_REQUIRED and close 4008; authenticating frees the slot', async () => {
      await withLimits({ maxUnauthenticatedPerSource: 2 }, async () => {
        const first = await connect();
        const second = await connect();
        const third = await connect();
        assert.equal((await third.next()).code, 'AUTH_REQUIRED');
        assert.equal(await third.closed, 4008);
        // Authenticating takes `first` out of the handshake count: a new connection fits again.
        first.send(authFrame((await ws.h.newUser()).client));
        assert.equal((await first.next()).kind, 'health');
        const fourth = await connect();
        fourth.send(authFrame((await ws.h.newUser()).client));
        assert.equal((await fourth.next()).kind, 'health');
        second.close();
        await second.closed;
      });
    });

    it('caps sessions per account: AUTH_REQUIRED and close 4008 beyond the cap, other accounts unaffected', async () => {
      await withLimits({ maxSessionsPerAccount: 2 }, async () => {
        const { client } = await ws.h.newUser();
        const a = await session(client);
        await session(client);
        const extra = await connect();
        extra.send(authFrame(client));
        const error = await extra.next();
        assert.equal(error.code, 'AUTH_REQUIRED');
        assert.match(String(error.message), /sessions per account/);
        assert.equal(await extra.closed, 4008);
        await session((await ws.h.newUser()).client);
        // Closing one session frees its place.
        a.close();
        await a.closed;
        await eventually(() => ws.h.node.context.hub.sessionsOf(client.login!.userId), (n) => n < 2, 500, 10);
        await session(client);
      });
    });

    it('keeps the per-account cap exact under concurrent logins (no login passes it together with another)', async () => {
      await withLimits({ maxSessionsPerAccount: 2 }, async () => {
        const { client } = await ws.h.newUser();
        // Open every socket first, then send all auth frames at once: their signature checks
        // overlap, so a check-then-register split by an await would admit more than two.
        const attempts = await Promise.all(Array.from({ length: 8 }, () => connect()));
        for (const socket of attempts) socket.send(authFrame(client));
        const answers = await Promise.all(attempts.map((socket) => socket.next()));
        const admitted = answers.filter((frame) => frame.kind === 'health').length;
        const refused = answers.filter((frame) => frame.code === 'AUTH_REQUIRED' && /sessions per account/.test(String(frame.message))).length;
        assert.equal(admitted, 2, JSON.stringify(answers));
        assert.equal(refused, 6, JSON.stringify(answers));
        assert.equal(ws.h.node.context.hub.sessionsOf(client.login!.userId), 2);
      });
    });

    it('refuses frames beyond the inbound rate with RATE_LIMITED and close 4029', async () => {
      await withLimits({ inboundFramesPerSec: 5 }, async () => {
        const socket = await session((await ws.h.newUser()).client);
        // The auth frame took one token of five; send ten pings at once.
        for (let i = 0; i < 10; i++) socket.send({ kind: 'ping' });
        const error = await socket.next((f) => f.kind === 'error');
        assert.equal(error.code, 'RATE_LIMITED');
        assert.equal(await socket.closed, 4029);
        const pongs = socket.frames.filter((f) => f.kind === 'pong').length;
        assert.ok(pongs <= 4, `at most the remaining tokens were served (${pongs})`);
      });
    });

    it('closes a consumer that cannot keep up with 4009, without holding up another session of the account', async () => {
      const { client } = await ws.h.newUser();
      const slow = await session(client);
      const fast = await session(client);
      await subscribe(slow, { topic: 'balances' });
      await slow.next(); // baseline
      await subscribe(fast, { topic: 'balances' });
      await fast.next();
      await withLimits({ sendBufferBytes: 256 * 1024 }, async () => {
        slow.ws.pause(); // stops reading: loopback buffers (a few MB) fill, then the send buffer
        const hub = ws.h.node.context.hub;
        const pad = 'x'.repeat(100_000);
        // Frames straight into the hub (past the outbox) so the test can send megabytes quickly;
        // paced, because the reading socket lives in this same process and must get to read.
        for (let i = 0; i < 80; i++) {
          hub.deliver(client.login!.userId, 'balances', { kind: 'balanceSnapshot', balances: [], pad, seq: 1000 + i });
          await elapse(2, 'paced: the reading socket lives in this process and must get to read');
        }
        slow.ws.resume();
        assert.equal(await slow.closed, 4009);
        let received = 0;
        while (received < 80) {
          const frame = await fast.next();
          assert.equal(frame.seq, 1000 + received);
          received++;
        }
        assert.equal(fast.closeCode, null);
      });
    });

    it('closes every socket with 1001 when the node shuts down', async () => {
      const own = await startHarness(backend);
      const socket = await openSession(own.url, (await own.newUser()).client, sockets);
      await own.close();
      assert.equal(await socket.closed, 1001);
    });

    // Found by the simulation (a node that never stopped): a reconnecting client's upgrade reached
    // the node as it began to stop, got the closing 503 on a socket nobody then ended, and the
    // node's stop waited on that socket for ever.
    it('refuses an upgrade that arrives while the node stops, and the stop does not wait on it', async () => {
      const own = await startHarness(backend);
      const raw = net.connect(Number(new URL(own.url).port), '127.0.0.1');
      await once(raw, 'connect');
      let answer = '';
      raw.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const ended = once(raw, 'close');
      // The request has begun (the connection is not idle, so the stop does not drop it) ...
      raw.write('GET /v1/rfq/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n');
      await elapse(100, 'the partial request reaches the server, which marks nothing the test could wait for');
      const stopping = own.node.close();
      let [closed, stopped] = [false, false];
      void ended.then(() => (closed = true));
      void stopping.then(() => (stopped = true));
      await waitFor(() => own.node.closing !== null || stopped, 'the node is stopping');
      // ... and ends once the node is stopping.
      raw.write(`Sec-WebSocket-Key: ${Buffer.alloc(16, 1).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      await eventually(() => answer, (text) => text.length > 0, 5_000);
      assert.match(answer, /^HTTP\/1\.1 503 /);
      // The client gives up (as ws does on a refused upgrade): the node's side ends too.
      raw.end();
      await eventually(() => closed, Boolean, 10_000);
      await eventually(() => stopped, Boolean, 20_000);
      if (!closed || !stopped) {
        raw.destroy();
        own.node.app.server.closeAllConnections();
      }
      assert.equal(closed, true, 'the node ended its side of the refused upgrade');
      assert.equal(stopped, true, 'the node stopped');
      await own.close();
    });
  });
}
