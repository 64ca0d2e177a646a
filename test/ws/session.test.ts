/**
 * `/v1/rfq/ws` over a real socket: the auth handshake (success, bad signature, deadline),
 * ping/pong, recoverable errors, and outbox-driven pushes for `balances` and `rfqStatus`.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { signCanonical, wsAuthCanonical } from '../../src/domain/auth/hmac.ts';
import type { RfqClient } from '../../src/client/rfq-client.ts';

type Frame = Record<string, unknown>;

/** A socket plus a queue of parsed frames, so tests await frames in order. */
class TestSocket {
  readonly ws: WebSocket;
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  closeCode: number | null = null;
  readonly closed: Promise<number>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => this.ws.on('close', (code) => {
      this.closeCode = code;
      for (const wake of this.waiters.splice(0)) wake();
      resolve(code);
    }));
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
  }

  send(frame: Frame | string): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** The next frame matching `match` (earlier non-matching frames are consumed). */
  async next(match: (f: Frame) => boolean = () => true, timeoutMs = 5000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.frames.length > 0) {
        const frame = this.frames.shift()!;
        if (match(frame)) return frame;
      }
      const left = deadline - Date.now();
      if (left <= 0 || this.closeCode !== null) assert.fail(`no matching frame (closed: ${this.closeCode})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
  }

  /** Asserts nothing arrives for `ms` (used to show a frame was not sent). */
  async quiet(ms: number): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    assert.deepEqual(this.frames, []);
  }

  close(): void {
    this.ws.close();
  }
}

let lastSignedAt = 0;
/** Unique per call: the (accessKey, signedAt) pair is a one-time claim. */
function signedAt(): number {
  lastSignedAt = Math.max(Date.now(), lastSignedAt + 1);
  return lastSignedAt;
}

function authFrame(client: RfqClient, at = signedAt(), secret = client.credentials!.secret): Frame {
  return { kind: 'auth', accessKey: client.credentials!.accessKey, signedAt: at, signature: signCanonical(secret, wsAuthCanonical(at, '/v1/rfq/ws')) };
}

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

    async function connect(): Promise<TestSocket> {
      const socket = new TestSocket(`${h.url.replace(/^http/, 'ws')}/v1/rfq/ws`);
      sockets.push(socket);
      await socket.opened();
      return socket;
    }

    async function session(client: RfqClient): Promise<TestSocket> {
      const socket = await connect();
      socket.send(authFrame(client));
      const health = await socket.next();
      assert.equal(health.kind, 'health', JSON.stringify(health));
      return socket;
    }

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
