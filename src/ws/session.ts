/**
 * One `/v1/rfq/ws` connection: the `auth` handshake under a deadline, then subscribe /
 * unsubscribe / ping. Inbound frames are handled strictly one after another (a promise chain)
 * so an async step (auth, a baseline read) never lets a later frame overtake it.
 */
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import type { ApiContext } from '../api/context.ts';
import { ServiceError } from '../domain/errors.ts';
import { wsAuthCanonical } from '../domain/auth/hmac.ts';
import { authenticateRequest } from '../services/auth/authenticate-request.ts';
import { activeMaker, pairOf } from '../services/rfq/maker-access.ts';
import { balancesBaseline, type Baseline } from './baselines.ts';
import { CLOSE_AUTH_FAILED, CLOSE_KEEPALIVE_TIMEOUT, WS_PATH, errorFrame, isSupportedTopic, parseClientFrame } from './frames.ts';
import type { HubSession, SessionHub } from './hub.ts';

/** Spec "Limits": 5 s unless the operator configures it. */
export const DEFAULT_HANDSHAKE_DEADLINE_MS = 5000;

/** The configured deadline (RFQ_WS_HANDSHAKE_DEADLINE_MS), read per connection. */
export function handshakeDeadlineMs(context: ApiContext): number {
  const value: unknown = context.ws.handshakeDeadlineMs;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : DEFAULT_HANDSHAKE_DEADLINE_MS;
}

/** DESIGN.md section 4: a server ping every `pingIntervalMs` (RFQ_WS_PING_INTERVAL_MS, 15 s). */
export const DEFAULT_PING_INTERVAL_MS = 15000;

export function pingIntervalMs(context: ApiContext): number {
  const value: unknown = context.ws.pingIntervalMs;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : DEFAULT_PING_INTERVAL_MS;
}

/** Subscriptions are keyed by topic, and by `openRfqs:<instrumentId>` for the parameterised one. */
function subscriptionKey(topic: string, instrumentId: string | undefined): string {
  return topic === 'openRfqs' ? `openRfqs:${instrumentId ?? ''}` : topic;
}

interface Subscription {
  /** False while the baseline is being read: pushes wait in `pending` so they follow it. */
  ready: boolean;
  /** Pushed frames with seq at or below this are already in the baseline. */
  floorSeq: number;
  pending: Record<string, unknown>[];
}

const OPEN = 1;

export class WsSession implements HubSession {
  accountId = '';
  private readonly socket: WebSocket;
  private readonly context: ApiContext;
  private readonly hub: SessionHub;
  private readonly logger: Logger;
  private authenticated = false;
  private makerScoped = false;
  private closed = false;
  private deadline: NodeJS.Timeout | null;
  private keepalive: NodeJS.Timeout | null = null;
  /** Server pings sent since the last pong. */
  private unansweredPings = 0;
  private chain: Promise<void> = Promise.resolve();
  private readonly subscriptions = new Map<string, Subscription>();

  constructor(socket: WebSocket, context: ApiContext, hub: SessionHub, logger: Logger) {
    this.socket = socket;
    this.context = context;
    this.hub = hub;
    this.logger = logger;
    this.deadline = setTimeout(() => this.refuse('no auth frame within the handshake deadline'), handshakeDeadlineMs(context));
    this.deadline.unref();
    socket.on('message', (data, isBinary) => {
      const raw = isBinary ? null : data.toString();
      this.chain = this.chain.then(() => this.handle(raw)).catch((error: unknown) => {
        this.logger.error({ err: error }, 'ws frame handling failed');
        this.send(errorFrame('INTERNAL', 'internal error'));
      });
    });
    socket.on('close', () => this.dispose());
    socket.on('error', () => this.dispose());
  }

  /**
   * Called by the hub for every committed frame of this account, and for broadcast openRfqs
   * frames of instruments this session watches; filtered by subscription.
   */
  deliver(topic: string, frame: Record<string, unknown>): void {
    const key = subscriptionKey(topic, typeof frame.instrumentId === 'string' ? frame.instrumentId : undefined);
    const sub = this.subscriptions.get(key);
    if (!sub) return;
    if (!sub.ready) {
      sub.pending.push(frame);
      return;
    }
    if (typeof frame.seq === 'number' && frame.seq <= sub.floorSeq) return;
    this.send(frame);
  }

  private async handle(raw: string | null): Promise<void> {
    if (this.closed) return;
    const frame = raw === null ? { kind: 'invalid' as const, message: 'binary frames are not accepted' } : parseClientFrame(raw);
    if (!this.authenticated) {
      // Before auth, the only acceptable frame is a valid `auth`; anything else ends the handshake.
      if (frame.kind !== 'auth') return this.refuse(frame.kind === 'invalid' ? frame.message : 'the first frame must be `auth`');
      return this.authenticate(frame.accessKey, frame.signedAt, frame.signature);
    }
    switch (frame.kind) {
      case 'ping':
        return this.send({ kind: 'pong' });
      case 'pong':
        // Never answered; it clears the keepalive count (unsolicited ones change nothing else).
        this.unansweredPings = 0;
        return;
      case 'auth':
        return this.send(errorFrame('INVALID_REQUEST', 'already authenticated'));
      case 'subscribe':
        return this.subscribe(frame.topic, frame.instrumentId);
      case 'unsubscribe':
        return this.unsubscribe(frame.topic, frame.instrumentId);
      case 'invalid':
        return this.send(errorFrame('INVALID_REQUEST', frame.message));
    }
  }

  private async authenticate(accessKey: string, signedAt: number, signature: string): Promise<void> {
    try {
      const auth = await authenticateRequest(this.context.authentication, {
        accessKey,
        timestamp: String(signedAt),
        signature,
        canonical: () => wsAuthCanonical(signedAt, WS_PATH),
      });
      if (this.closed) return;
      this.clearDeadline();
      this.authenticated = true;
      this.accountId = auth.accountId;
      this.makerScoped = auth.makerScoped;
      this.hub.add(this);
      this.startKeepalive();
      // isMaker: the credential is maker-scoped (not a live read of the maker record; see report).
      this.send({ kind: 'health', userId: auth.accountId, isMaker: auth.makerScoped });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      // The precise reason (expired, mismatch, reused) goes in the message; the code is the spec's.
      this.refuse(error.message);
    }
  }

  /** Null when the session may hold the topic; else why not (UNSUPPORTED_CHANNEL). */
  private async refusal(topic: string, instrumentId: string | undefined): Promise<string | null> {
    if (topic === 'quoteStatus') return this.makerScoped ? null : 'quoteStatus needs a maker-scoped credential';
    if (topic !== 'openRfqs') return null;
    const instrument = (await this.context.service.refdata.current()).instruments.get(instrumentId!);
    if (!instrument) return `instrument ${JSON.stringify(instrumentId)} is not available`;
    let maker;
    try {
      maker = await activeMaker(this.context.service.db, this.accountId, this.context.service.clock.now());
    } catch (error) {
      if (error instanceof ServiceError) return `openRfqs: ${error.message}`;
      throw error;
    }
    if (!maker.pairs.includes(pairOf(instrument))) return `openRfqs: maker is not approved for ${pairOf(instrument)}`;
    if (maker.settlementModes.length === 0) return 'openRfqs: maker has no settlement mode';
    return null;
  }

  private async subscribe(topic: string, instrumentId: string | undefined): Promise<void> {
    if (!isSupportedTopic(topic)) return this.send(errorFrame('UNSUPPORTED_CHANNEL', `topic ${JSON.stringify(topic.slice(0, 64))} is not available`));
    if (topic === 'openRfqs' && instrumentId === undefined) return this.send(errorFrame('INVALID_REQUEST', 'openRfqs: `instrumentId` required'));
    const selector: Record<string, unknown> = topic === 'openRfqs' ? { topic, instrumentId } : { topic };
    const key = subscriptionKey(topic, instrumentId);
    if (this.subscriptions.has(key)) {
      // Re-subscribing is idempotent: echo again, no second baseline stream.
      return this.send({ kind: 'subscribed', ...selector });
    }
    const refused = await this.refusal(topic, instrumentId);
    if (this.closed) return;
    if (refused !== null) return this.send(errorFrame('UNSUPPORTED_CHANNEL', refused));
    const sub: Subscription = { ready: false, floorSeq: 0, pending: [] };
    this.subscriptions.set(key, sub);
    if (topic === 'openRfqs') this.hub.watchOpenRfqs(this, instrumentId!);
    this.send({ kind: 'subscribed', ...selector });
    let baseline: Baseline | null = null;
    try {
      baseline = topic === 'balances' ? await balancesBaseline(this.context.service, this.accountId) : null;
    } finally {
      // rfqStatus, quotes and quoteStatus have no baseline in this slice (the spec's replays are
      // not built yet): pushes only. openRfqs has none by spec.
      if (baseline) {
        sub.floorSeq = baseline.seq;
        for (const frame of baseline.frames) this.send({ ...frame, seq: baseline.seq });
      }
      sub.ready = true;
      const pending = sub.pending.splice(0);
      // Unsubscribed while the baseline was read: nothing more to send.
      if (this.subscriptions.get(key) === sub) for (const frame of pending) this.deliver(topic, frame);
    }
  }

  /** Acknowledged whether or not it was held (spec). openRfqs without instrumentId drops them all. */
  private unsubscribe(topic: string, instrumentId: string | undefined): void {
    if (topic === 'openRfqs') {
      for (const key of [...this.subscriptions.keys()]) {
        if (!key.startsWith('openRfqs:')) continue;
        const id = key.slice('openRfqs:'.length);
        if (instrumentId !== undefined && id !== instrumentId) continue;
        this.subscriptions.delete(key);
        this.hub.unwatchOpenRfqs(this, id);
      }
      return this.send(instrumentId === undefined ? { kind: 'unsubscribed', topic } : { kind: 'unsubscribed', topic, instrumentId });
    }
    this.subscriptions.delete(topic);
    this.send({ kind: 'unsubscribed', topic });
  }

  /** A server `ping` per interval; two consecutive unanswered ones close the session. */
  private startKeepalive(): void {
    this.keepalive = setInterval(() => {
      if (this.closed) return;
      if (this.unansweredPings >= 2) {
        this.socket.close(CLOSE_KEEPALIVE_TIMEOUT, 'keepalive timeout');
        this.dispose();
        return;
      }
      this.unansweredPings++;
      this.send({ kind: 'ping' });
    }, pingIntervalMs(this.context));
    this.keepalive.unref();
  }

  private send(frame: Record<string, unknown>): void {
    if (this.closed || this.socket.readyState !== OPEN) return;
    this.socket.send(JSON.stringify(frame));
  }

  /** AUTH_REQUIRED then close 4001 (DESIGN.md section 4 close codes). */
  private refuse(message: string): void {
    if (this.closed) return;
    this.send(errorFrame('AUTH_REQUIRED', message));
    this.socket.close(CLOSE_AUTH_FAILED, 'authentication required');
    this.dispose();
  }

  private clearDeadline(): void {
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = null;
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.clearDeadline();
    if (this.keepalive) clearInterval(this.keepalive);
    this.keepalive = null;
    this.subscriptions.clear();
    this.hub.remove(this);
  }
}
