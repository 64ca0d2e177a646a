/**
 * What both socket paths share: the handshake under a deadline with the signed `auth` frame, the
 * per-source cap on connections still in their handshake, the inbound frame rate limit, strictly
 * ordered frame handling, and a bounded send buffer.
 *
 * Inbound frames are handled one after another (a promise chain) so an async step (auth, a
 * baseline read) never lets a later frame overtake it.
 */
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import { ServiceError } from '../domain/errors.ts';
import { authenticateRequest, type AuthContext } from '../services/auth/authenticate-request.ts';
import { CLOSE_AUTH_FAILED, CLOSE_CONNECTION_CAP, CLOSE_RATE_LIMITED, CLOSE_SLOW_CONSUMER, errorFrame } from './frames.ts';
import type { AuditedSession, SessionHub } from './hub.ts';
import type { WsContext } from './ws-context.ts';

const OPEN = 1;
/** A peer that does not complete the close handshake within this is cut off. */
const CLOSE_GRACE_MS = 1000;

/** Token bucket: `ratePerSec` frames per second with a burst of one second's worth. */
export class FrameBucket {
  private tokens: number;
  private last: number;
  private readonly ratePerSec: number;

  constructor(ratePerSec: number, now: number) {
    this.ratePerSec = ratePerSec;
    this.tokens = ratePerSec;
    this.last = now;
  }

  take(now: number): boolean {
    this.tokens = Math.min(this.ratePerSec, this.tokens + ((now - this.last) * this.ratePerSec) / 1000);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

export abstract class WsConnection implements AuditedSession {
  accountId = '';
  /** The key this session authenticated with; its standing is re-read by the session auditor. */
  accessKey = '';
  protected readonly socket: WebSocket;
  protected readonly context: WsContext;
  protected readonly hub: SessionHub;
  protected readonly logger: Logger;
  protected authenticated = false;
  protected closed = false;
  private readonly source: string;
  private holdsSourceSlot = false;
  private deadline: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private readonly bucket: FrameBucket;
  /** The socket path the `auth` frame signs. */
  private readonly path: string;

  constructor(socket: WebSocket, context: WsContext, hub: SessionHub, logger: Logger, source: string, path: string) {
    this.socket = socket;
    this.context = context;
    this.hub = hub;
    this.logger = logger;
    this.source = source;
    this.path = path;
    this.bucket = new FrameBucket(context.ws.inboundFramesPerSec, Date.now());
    socket.on('close', () => this.dispose());
    socket.on('error', () => this.dispose());
    if (!hub.unauthenticated.tryAcquire(source, context.ws.maxUnauthenticatedPerSource)) {
      this.refuse('too many unauthenticated connections from this source', CLOSE_CONNECTION_CAP);
      return;
    }
    this.holdsSourceSlot = true;
    this.deadline = setTimeout(() => this.refuse('no auth frame within the handshake deadline'), context.ws.handshakeDeadlineMs);
    this.deadline.unref();
    socket.on('message', (data, isBinary) => {
      if (this.closed) return;
      if (!this.bucket.take(Date.now())) {
        this.send(errorFrame('RATE_LIMITED', `more than ${context.ws.inboundFramesPerSec} frames per second`));
        this.closeWith(CLOSE_RATE_LIMITED, 'rate limited');
        return;
      }
      const raw = isBinary ? null : data.toString();
      this.chain = this.chain.then(() => (this.closed ? undefined : this.handle(raw))).catch((error: unknown) => {
        this.logger.error({ err: error }, 'ws frame handling failed');
        this.send(errorFrame('INTERNAL', 'internal error'));
      });
    });
  }

  /** One inbound text frame (null: a binary frame), in arrival order. */
  protected abstract handle(raw: string | null): Promise<void>;

  /** Releases what the subclass registered (hub entries, timers); called once. */
  protected abstract release(): void;

  /**
   * Verifies an `auth` frame for this socket's path and applies the per-account cap: `admit`
   * checks the account's sessions of this kind on this node and registers this one in the same
   * synchronous step, so concurrent logins can never pass the cap together. Refuses and returns
   * null on failure.
   */
  protected async verifyAuth(accessKey: string, signedAt: number, signature: string, admit: (accountId: string) => boolean, max: number): Promise<AuthContext | null> {
    let auth: AuthContext;
    try {
      auth = await authenticateRequest(this.context.authentication, {
        accessKey,
        timestamp: String(signedAt),
        signature,
        signed: { method: 'GET', path: this.path, query: '', body: '' },
      });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      // The precise reason (expired, mismatch, reused) goes in the message; the code is the spec's.
      this.refuse(error.message);
      return null;
    }
    if (this.closed) return null;
    this.accountId = auth.accountId;
    if (!admit(auth.accountId)) {
      this.refuse(`at most ${max} sessions per account`, CLOSE_CONNECTION_CAP);
      return null;
    }
    this.clearDeadline();
    this.releaseSourceSlot();
    this.authenticated = true;
    this.accessKey = auth.accessKey;
    this.hub.audited.add(this);
    return auth;
  }

  endForCredential(reason: string): void {
    this.refuse(reason);
  }

  /** Called while the account is not an active maker; each path drops what needs one. */
  abstract makerLost(reason: string): void;

  protected send(frame: Record<string, unknown>): boolean {
    return this.sendData(JSON.stringify(frame));
  }

  /**
   * Queues one serialised frame, unless that would take the socket's unsent bytes past
   * `sendBufferBytes`: then the consumer is not keeping up and is closed (4009), so its backlog
   * never grows without bound nor holds up anyone else. Returns whether the frame was queued.
   */
  protected sendData(data: string | Buffer): boolean {
    if (this.closed || this.socket.readyState !== OPEN) return false;
    // data.length counts UTF-16 units, not bytes: close enough for a bound (frames are mostly ASCII).
    if (this.socket.bufferedAmount + data.length > this.context.ws.sendBufferBytes) {
      this.closeWith(CLOSE_SLOW_CONSUMER, 'slow consumer');
      return false;
    }
    // A Buffer is a pre-encoded text frame shared by many sockets (price ticks): no per-socket encode.
    if (typeof data === 'string') this.socket.send(data);
    else this.socket.send(data, { binary: false });
    return true;
  }

  /** Bytes queued but not yet handed to the kernel. */
  protected bufferedBytes(): number {
    return this.socket.bufferedAmount;
  }

  /** AUTH_REQUIRED then close (4001 handshake, 4008 connection cap). */
  protected refuse(message: string, code = CLOSE_AUTH_FAILED): void {
    if (this.closed) return;
    this.send(errorFrame('AUTH_REQUIRED', message));
    this.closeWith(code, code === CLOSE_CONNECTION_CAP ? 'connection cap' : 'authentication required');
  }

  protected closeWith(code: number, reason: string): void {
    if (this.closed) return;
    this.socket.close(code, reason);
    // A peer that stopped reading never completes the close handshake; do not wait ws's 30 s.
    const socket = this.socket;
    setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    this.dispose();
  }

  private clearDeadline(): void {
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = null;
  }

  private releaseSourceSlot(): void {
    if (!this.holdsSourceSlot) return;
    this.holdsSourceSlot = false;
    this.hub.unauthenticated.release(this.source);
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearDeadline();
    this.releaseSourceSlot();
    this.hub.audited.delete(this);
    if (this.authenticated) this.release();
  }
}
