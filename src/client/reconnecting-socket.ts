/**
 * The connection core shared by the account session (`/v1/rfq/ws`) and the price-ingest client
 * (`/v1/rfq/prices/ws`): open the socket, send the signed `auth` frame, wait for `health`, keep
 * the link alive, and after an unexpected close reconnect with backoff and re-authenticate.
 * Subclasses restore their own state (subscriptions, ladders) in `restore()`.
 *
 * Events (a typed EventEmitter):
 * - `frame` (frame): every server frame, in arrival order (subclasses may drop stale ones);
 * - `open` (health): each successful (re)authentication;
 * - `disconnected` ({ code, reason }): the socket closed unexpectedly; a reconnect follows;
 * - `reconnecting` ({ attempt, delayMs }): a reconnect is scheduled;
 * - `closed` ({ reason, error? }): final; after `close()` or when reconnecting gave up.
 */
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { signCanonical, wsAuthCanonical } from '../domain/auth/hmac.ts';
import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.ts';
import { CloseCode, parseServerFrame, type ClientFrame, type HealthFrame, type LadderFrame, type ServerFrame, type UnknownFrame } from './frames.ts';
import { TimestampSource, type Credentials } from './http.ts';

export type SocketState = 'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface SocketEvents {
  frame: [ServerFrame | UnknownFrame];
  open: [HealthFrame];
  disconnected: [{ code: number; reason: string }];
  reconnecting: [{ attempt: number; delayMs: number }];
  closed: [{ reason: string; error?: Error }];
}

export interface SocketOptions {
  /** Service base URL, `http(s)://host:port` or `ws(s)://host:port`. */
  baseUrl: string;
  credentials: Credentials;
  /**
   * Maker credentials: ask for cancel on disconnect in every `auth`, so the maker's open quotes are
   * cancelled when its last such session ends (`health.cancelOnDisconnect` confirms it).
   */
  cancelOnDisconnect?: boolean;
  /** Share the REST transport's source when both use one credential (`client.http.timestamps`). */
  timestamps?: TimestampSource;
  /** How often this side proves the link (spec: a pair about every 15 s). */
  pingIntervalMs?: number;
  /** Upgrade plus `auth` until `health`; a stalled handshake is abandoned and retried. */
  handshakeTimeoutMs?: number;
  backoff?: BackoffOptions;
  /** Reconnect attempts in a row before giving up (default unbounded). */
  maxReconnectAttempts?: number;
  /** Consecutive refused authentications (close 4001) before giving up: a revoked key never heals. */
  maxAuthFailures?: number;
  random?: () => number;
}

export const DEFAULT_PING_INTERVAL_MS = 15_000;
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_AUTH_FAILURES = 3;
/** Pings in a row with nothing received in between before the server counts as dead. */
const MAX_UNANSWERED_PINGS = 2;

export class SocketClosedError extends Error {
  override readonly name = 'SocketClosedError';
}

export abstract class ReconnectingSocket extends EventEmitter<SocketEvents> {
  readonly url: string;
  protected readonly options: SocketOptions;
  readonly #timestamps: TimestampSource;
  #state: SocketState = 'idle';
  #socket: WebSocket | null = null;
  #attempt = 0;
  #authFailures = 0;
  #unansweredPings = 0;
  #pingTimer: NodeJS.Timeout | null = null;
  #handshakeTimer: NodeJS.Timeout | null = null;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #firstConnect: { resolve: (health: HealthFrame) => void; reject: (error: Error) => void } | null = null;

  /** The path the `auth` frame signs. */
  readonly #path: string;
  /** `frames`: application `ping`/`pong` frames (`/v1/rfq/ws`); `native`: WebSocket control pings (price ingest). */
  readonly #keepalive: 'frames' | 'native';

  protected constructor(options: SocketOptions, path: string, keepalive: 'frames' | 'native') {
    super();
    this.options = options;
    this.url = `${options.baseUrl.replace(/\/$/, '').replace(/^http/, 'ws')}${path}`;
    this.#timestamps = options.timestamps ?? new TimestampSource();
    this.#path = path;
    this.#keepalive = keepalive;
  }

  get state(): SocketState {
    return this.#state;
  }

  /**
   * Opens the socket and authenticates; resolves with the `health` frame. If this first attempt
   * fails the promise rejects and nothing is retried; reconnection covers later drops.
   */
  connect(): Promise<HealthFrame> {
    if (this.#state !== 'idle') return Promise.reject(new Error(`connect() called in state ${this.#state}`));
    return new Promise((resolve, reject) => {
      this.#firstConnect = { resolve, reject };
      this.#open();
    });
  }

  /** Ends the session for good (no reconnect). */
  close(): void {
    this.#finish('closed by the client');
  }

  /** The next frame matching `match`, or a rejection after `timeoutMs` or when the session ends. */
  next<F extends ServerFrame | UnknownFrame = ServerFrame>(match: (frame: ServerFrame | UnknownFrame) => boolean, timeoutMs: number): Promise<F> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.off('frame', onFrame);
        this.off('closed', onClosed);
      };
      const onFrame = (frame: ServerFrame | UnknownFrame) => {
        if (!match(frame)) return;
        cleanup();
        resolve(frame as F);
      };
      const onClosed = ({ reason }: { reason: string }) => {
        cleanup();
        reject(new SocketClosedError(reason));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no matching frame within ${timeoutMs} ms`));
      }, timeoutMs);
      this.on('frame', onFrame);
      this.on('closed', onClosed);
    });
  }

  /** Sends on the current socket; false when there is none open (the frame is not queued). */
  protected send(frame: ClientFrame | LadderFrame): boolean {
    const socket = this.#socket;
    if (this.#state !== 'open' || !socket || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(JSON.stringify(frame));
    return true;
  }

  /** Called after every successful (re)authentication, before `open` is emitted. */
  protected abstract restore(): void;
  /** Called with each frame before it is emitted; return false to drop it. */
  protected accept(_frame: ServerFrame | UnknownFrame): boolean {
    return true;
  }
  /** Called when the socket is lost or the session ends, to forget per-socket bookkeeping. */
  protected abstract forgetSocket(finalError: Error | null): void;

  #open(): void {
    this.#state = this.#attempt === 0 ? 'connecting' : 'reconnecting';
    const handshakeTimeoutMs = this.options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
    const socket = new WebSocket(this.url, { handshakeTimeout: handshakeTimeoutMs });
    this.#socket = socket;
    let lastError: Error | null = null;
    // Covers the upgrade and the auth round trip: a server that accepts and then says nothing
    // would otherwise hold the session forever.
    this.#handshakeTimer = setTimeout(() => {
      lastError = new Error(`no health frame within ${handshakeTimeoutMs} ms`);
      socket.terminate();
    }, handshakeTimeoutMs);
    socket.on('open', () => {
      const signedAt = this.#timestamps.next();
      const signature = signCanonical(this.options.credentials.secret, wsAuthCanonical(signedAt, this.#path));
      const cancelOnDisconnect = this.options.cancelOnDisconnect ? { cancelOnDisconnect: true } : {};
      socket.send(JSON.stringify({ kind: 'auth', accessKey: this.options.credentials.accessKey, signedAt, signature, ...cancelOnDisconnect }));
    });
    socket.on('message', (data, isBinary) => {
      if (socket !== this.#socket || isBinary) return;
      const frame = parseServerFrame(data.toString());
      if (frame) this.#receive(socket, frame);
    });
    socket.on('pong', () => {
      this.#unansweredPings = 0;
    });
    socket.on('error', (error) => {
      lastError = error;
    });
    socket.on('close', (code, reason) => this.#lost(socket, code, reason.toString() || lastError?.message || ''));
  }

  #receive(socket: WebSocket, frame: ServerFrame | UnknownFrame): void {
    // Anything from the server proves it alive.
    this.#unansweredPings = 0;
    if (frame.kind === 'health' && this.#state !== 'open') {
      this.#clearTimer('handshake');
      this.#state = 'open';
      this.#attempt = 0;
      this.#authFailures = 0;
      this.#startKeepalive(socket);
      this.restore();
      const first = this.#firstConnect;
      this.#firstConnect = null;
      first?.resolve(frame as HealthFrame);
      this.emit('open', frame as HealthFrame);
    }
    if (frame.kind === 'ping' && this.#keepalive === 'frames') this.send({ kind: 'pong' });
    if (this.accept(frame)) this.emit('frame', frame);
  }

  #startKeepalive(socket: WebSocket): void {
    this.#unansweredPings = 0;
    this.#pingTimer = setInterval(() => {
      if (this.#unansweredPings >= MAX_UNANSWERED_PINGS) {
        // terminate, not close: a dead peer would never complete a closing handshake.
        socket.terminate();
        return;
      }
      this.#unansweredPings++;
      if (this.#keepalive === 'native') socket.ping();
      else this.send({ kind: 'ping' });
    }, this.options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS);
    this.#pingTimer.unref();
  }

  #lost(socket: WebSocket, code: number, reason: string): void {
    if (socket !== this.#socket) return;
    this.#socket = null;
    this.#clearTimer('handshake');
    this.#clearTimer('ping');
    if (this.#state === 'closed') return;
    if (this.#firstConnect) {
      this.#finish(`could not open ${this.url}`, new Error(`could not open ${this.url}: ${reason || `close ${code}`}`));
      return;
    }
    this.forgetSocket(null);
    this.emit('disconnected', { code, reason });
    if (code === CloseCode.authFailed && ++this.#authFailures >= (this.options.maxAuthFailures ?? DEFAULT_MAX_AUTH_FAILURES)) {
      this.#finish('authentication refused', new Error(`authentication refused ${this.#authFailures} times in a row: ${reason}`));
      return;
    }
    this.#attempt++;
    if (this.#attempt > (this.options.maxReconnectAttempts ?? Number.POSITIVE_INFINITY)) {
      this.#finish('gave up reconnecting', new Error(`gave up after ${this.#attempt - 1} reconnect attempts: ${reason || `close ${code}`}`));
      return;
    }
    const delayMs = backoffDelayMs(this.#attempt, this.options.backoff ?? DEFAULT_BACKOFF, this.options.random);
    this.#state = 'reconnecting';
    this.emit('reconnecting', { attempt: this.#attempt, delayMs });
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      if (this.#state === 'reconnecting') this.#open();
    }, delayMs);
  }

  #finish(reason: string, error?: Error): void {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    for (const timer of ['handshake', 'ping', 'reconnect'] as const) this.#clearTimer(timer);
    const socket = this.#socket;
    this.#socket = null;
    if (socket) {
      if (socket.readyState === WebSocket.OPEN) socket.close(1000, 'client closing');
      else socket.terminate();
    }
    const final = error ?? new SocketClosedError(reason);
    this.forgetSocket(final);
    const first = this.#firstConnect;
    this.#firstConnect = null;
    first?.reject(final);
    this.emit('closed', error ? { reason, error } : { reason });
  }

  #clearTimer(which: 'handshake' | 'ping' | 'reconnect'): void {
    if (which === 'handshake' && this.#handshakeTimer) clearTimeout(this.#handshakeTimer);
    if (which === 'ping' && this.#pingTimer) clearInterval(this.#pingTimer);
    if (which === 'reconnect' && this.#reconnectTimer) clearTimeout(this.#reconnectTimer);
    if (which === 'handshake') this.#handshakeTimer = null;
    if (which === 'ping') this.#pingTimer = null;
    if (which === 'reconnect') this.#reconnectTimer = null;
  }
}
