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
import { balancesBaseline, type Baseline } from './baselines.ts';
import { CLOSE_AUTH_FAILED, WS_PATH, errorFrame, isSupportedTopic, parseClientFrame, type SupportedTopic } from './frames.ts';
import type { HubSession, SessionHub } from './hub.ts';

/** Spec "Limits": 5 s unless the operator configures it. */
export const DEFAULT_HANDSHAKE_DEADLINE_MS = 5000;

/** The configured deadline (RFQ_WS_HANDSHAKE_DEADLINE_MS), read per connection. */
export function handshakeDeadlineMs(context: ApiContext): number {
  const value: unknown = context.ws.handshakeDeadlineMs;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : DEFAULT_HANDSHAKE_DEADLINE_MS;
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
  private closed = false;
  private deadline: NodeJS.Timeout | null;
  private chain: Promise<void> = Promise.resolve();
  private readonly subscriptions = new Map<SupportedTopic, Subscription>();

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

  /** Called by the hub for every committed frame of this account; filtered by subscription. */
  deliver(topic: string, frame: Record<string, unknown>): void {
    const sub = this.subscriptions.get(topic as SupportedTopic);
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
        return; // never answered; unsolicited ones are ignored (spec)
      case 'auth':
        return this.send(errorFrame('INVALID_REQUEST', 'already authenticated'));
      case 'subscribe':
        return this.subscribe(frame.topic);
      case 'unsubscribe':
        // Acknowledged whether or not it was held (spec).
        this.subscriptions.delete(frame.topic as SupportedTopic);
        return this.send({ kind: 'unsubscribed', topic: frame.topic });
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
      this.hub.add(this);
      // isMaker: the credential is maker-scoped (not a live read of the maker record; see report).
      this.send({ kind: 'health', userId: auth.accountId, isMaker: auth.makerScoped });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      // The precise reason (expired, mismatch, reused) goes in the message; the code is the spec's.
      this.refuse(error.message);
    }
  }

  private async subscribe(topic: string): Promise<void> {
    if (!isSupportedTopic(topic)) return this.send(errorFrame('UNSUPPORTED_CHANNEL', `topic ${JSON.stringify(topic.slice(0, 64))} is not available`));
    if (this.subscriptions.has(topic)) {
      // Re-subscribing is idempotent: echo again, no second baseline stream.
      return this.send({ kind: 'subscribed', topic });
    }
    const sub: Subscription = { ready: false, floorSeq: 0, pending: [] };
    this.subscriptions.set(topic, sub);
    this.send({ kind: 'subscribed', topic });
    let baseline: Baseline | null = null;
    try {
      baseline = topic === 'balances' ? await balancesBaseline(this.context.service, this.accountId) : null;
    } finally {
      // rfqStatus has no baseline in this slice (the spec's open-RFQ replay is not built yet).
      if (baseline) {
        sub.floorSeq = baseline.seq;
        for (const frame of baseline.frames) this.send({ ...frame, seq: baseline.seq });
      }
      sub.ready = true;
      const pending = sub.pending.splice(0);
      // Unsubscribed while the baseline was read: nothing more to send.
      if (this.subscriptions.get(topic) === sub) for (const frame of pending) this.deliver(topic, frame);
    }
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
    this.subscriptions.clear();
    this.hub.remove(this);
  }
}
