/** A test WebSocket client for /v1/rfq/ws: a frame queue plus signed auth frames. */
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { signCanonical, wsAuthCanonical } from '../../src/domain/auth/hmac.ts';
import type { RfqClient } from '../../src/client/rfq-client.ts';

export type Frame = Record<string, unknown>;

/** A socket plus a queue of parsed frames, so tests await frames in order. */
export class TestSocket {
  readonly ws: WebSocket;
  readonly frames: Frame[] = [];
  /** Every frame received, in order; `next` consumes `frames`, never this. */
  readonly received: Frame[] = [];
  private waiters: Array<() => void> = [];
  closeCode: number | null = null;
  readonly closed: Promise<number>;

  constructor(url: string, options?: WebSocket.ClientOptions) {
    this.ws = new WebSocket(url, options);
    this.ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as Frame;
      this.frames.push(frame);
      this.received.push(frame);
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
      // Woken by the next frame or the close; the timer only bounds the wait.
      await new Promise<void>((wake) => {
        const timer = setTimeout(() => wake(), left);
        this.waiters.push(() => { clearTimeout(timer); wake(); });
      });
    }
  }

  /**
   * Asserts that no frame arrives before the answer to a `ping` sent now. The session handles a
   * socket's frames one after another and sends on it in order, so whatever it sent before it
   * handled the ping (a subscription's baseline or replay included) comes first. A frame another
   * part of the node sends later needs its own marker first: `outboxDispatched` for the outbox
   * dispatcher's, a later frame the test causes for the price book's conflated ticks.
   */
  async quiet(): Promise<void> {
    this.send({ kind: 'ping' });
    const first = await this.next();
    assert.deepEqual(first, { kind: 'pong' }, `a frame arrived before the pong: ${JSON.stringify(first)}`);
  }

  close(): void {
    this.ws.close();
  }
}

let lastSignedAt = 0;
/** Unique per call: the (accessKey, signedAt) pair is a one-time claim. */
export function signedAt(): number {
  lastSignedAt = Math.max(Date.now(), lastSignedAt + 1);
  return lastSignedAt;
}

export const SESSION_PATH = '/v1/rfq/ws';
export const INGEST_PATH = '/v1/rfq/prices/ws';

export function authFrame(client: RfqClient, at = signedAt(), secret = client.credentials!.secret, path = SESSION_PATH): Frame {
  return { kind: 'auth', accessKey: client.credentials!.accessKey, signedAt: at, signature: signCanonical(secret, wsAuthCanonical(at, path)) };
}

/** Opens a socket path on the node at `baseUrl`, tracked in `sockets` for closing after the suite. */
export async function openSocket(baseUrl: string, sockets: TestSocket[], path = SESSION_PATH): Promise<TestSocket> {
  const socket = new TestSocket(`${baseUrl.replace(/^http/, 'ws')}${path}`);
  sockets.push(socket);
  await socket.opened();
  return socket;
}

/** An open socket already authenticated as `client` (its `health` frame consumed). */
export async function openSession(baseUrl: string, client: RfqClient, sockets: TestSocket[], path = SESSION_PATH): Promise<TestSocket> {
  const socket = await openSocket(baseUrl, sockets, path);
  socket.send(authFrame(client, signedAt(), client.credentials!.secret, path));
  const health = await socket.next();
  assert.equal(health.kind, 'health', JSON.stringify(health));
  return socket;
}

/** Subscribes and returns the `subscribed` ack (asserting it echoes the selector). */
export async function subscribe(socket: TestSocket, selector: Frame): Promise<Frame> {
  socket.send({ kind: 'subscribe', ...selector });
  const ack = await socket.next();
  assert.equal(ack.kind, 'subscribed', JSON.stringify(ack));
  for (const [key, value] of Object.entries(selector)) if (key !== 'fromSeq') assert.equal(ack[key], value);
  return ack;
}
