/**
 * One `/v1/rfq/ws` session after the shared handshake (connection.ts): `health`, then
 * subscribe / unsubscribe / ping, the application keepalive, and delivery of committed frames
 * (account topics with `seq`, broadcast `rfq` frames) and `price` ticks.
 */
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import { ServiceError } from '../domain/errors.ts';
import { MAKER_SCOPE_HINT } from '../domain/auth/maker-scope.ts';
import { activeMaker, makerServes, pairOf } from '../services/rfq/maker-access.ts';
import { startAccountTopic, type TopicStart } from './baselines.ts';
import { WsConnection } from './connection.ts';
import { CLOSE_KEEPALIVE_TIMEOUT, WS_PATH, errorFrame, isAccountTopic, isSupportedTopic, parseClientFrame, takesInstrument } from './frames.ts';
import type { HubSession, SessionHub } from './hub.ts';
import type { WsContext } from './ws-context.ts';
import type { PriceBook } from './price-book.ts';
import { openRfqFrameFor } from './open-rfq-frame.ts';

/** Subscriptions are keyed by topic, and by `<topic>:<instrumentId>` for the parameterised ones. */
function subscriptionKey(topic: string, instrumentId: string | undefined): string {
  return takesInstrument(topic) ? `${topic}:${instrumentId ?? ''}` : topic;
}

interface Subscription {
  /** False while the start (baseline or replay) is being read: pushes wait in `pending`. */
  ready: boolean;
  /** Pushed frames with seq at or below this are already covered by the start. */
  floorSeq: number;
  pending: Record<string, unknown>[];
}

/** A price frame queued while the socket was behind; below this many queued bytes, send at once. */
const PRICE_CONFLATE_BYTES = 64 * 1024;
const PRICE_RETRY_MS = 25;

export class WsSession extends WsConnection implements HubSession {
  private makerScoped = false;
  /** This session's row in the store's maker sessions (cancel on disconnect), when maker-scoped. */
  private presenceId: string | null = null;
  private keepalive: NodeJS.Timeout | null = null;
  /** Server pings sent since the last pong. */
  private unansweredPings = 0;
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly openRfqs = new Set<string>();
  private readonly prices = new Set<string>();
  /** Latest price frame per instrument not yet sent because the socket was behind. */
  private conflated: Map<string, Buffer> | null = null;
  private conflateTimer: NodeJS.Timeout | null = null;
  private readonly book: PriceBook;

  constructor(socket: WebSocket, context: WsContext, hub: SessionHub, book: PriceBook, logger: Logger, source: string) {
    super(socket, context, hub, logger, source, WS_PATH);
    this.book = book;
  }

  /** A committed frame of this account, or a broadcast openRfqs frame; filtered by subscription. */
  deliver(topic: string, broadcast: Record<string, unknown>): void {
    const frame = topic === 'openRfqs' ? openRfqFrameFor(broadcast, this.accountId, this.context.service.pseudonyms) : broadcast;
    if (frame === null) return;
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

  /**
   * A serialised top-of-book tick. When the socket is behind, only the newest tick per instrument
   * waits (superseded ones are dropped and counted): prices are a latest-value stream.
   */
  deliverPrice(instrumentId: string, data: Buffer): void {
    if (this.closed || !this.prices.has(instrumentId)) return;
    if (this.conflated === null && this.bufferedBytes() < PRICE_CONFLATE_BYTES) {
      this.sendData(data);
      return;
    }
    this.conflated ??= new Map();
    if (this.conflated.has(instrumentId)) this.hub.pricesConflated++;
    this.conflated.set(instrumentId, data);
    this.conflateTimer ??= setTimeout(() => this.flushPrices(), PRICE_RETRY_MS);
  }

  private flushPrices(): void {
    this.conflateTimer = null;
    if (this.closed || this.conflated === null) return;
    if (this.bufferedBytes() >= PRICE_CONFLATE_BYTES) {
      this.conflateTimer = setTimeout(() => this.flushPrices(), PRICE_RETRY_MS);
      return;
    }
    const frames = this.conflated;
    this.conflated = null;
    for (const data of frames.values()) this.sendData(data);
  }

  protected async handle(raw: string | null): Promise<void> {
    const frame = raw === null ? { kind: 'invalid' as const, message: 'binary frames are not accepted' } : parseClientFrame(raw);
    if (!this.authenticated) {
      // Before auth, the only acceptable frame is a valid `auth`; anything else ends the handshake.
      if (frame.kind !== 'auth') return this.refuse(frame.kind === 'invalid' ? frame.message : 'the first frame must be `auth`');
      return this.authenticate(frame.accessKey, frame.signedAt, frame.signature, frame.cancelOnDisconnect === true);
    }
    switch (frame.kind) {
      case 'ping':
        this.send({ kind: 'pong' });
        return;
      case 'pong':
        // Never answered; it clears the keepalive count (unsolicited ones change nothing else).
        this.unansweredPings = 0;
        return;
      case 'auth':
        this.send(errorFrame('INVALID_REQUEST', 'already authenticated'));
        return;
      case 'subscribe':
        return this.subscribe(frame.topic, frame.instrumentId, frame.fromSeq);
      case 'unsubscribe':
        return this.unsubscribe(frame.topic, frame.instrumentId);
      case 'invalid':
        this.send(errorFrame('INVALID_REQUEST', frame.message));
        return;
    }
  }

  private async authenticate(accessKey: string, signedAt: number, signature: string, cancelOnDisconnect: boolean): Promise<void> {
    const max = this.context.ws.maxSessionsPerAccount;
    const admit = (accountId: string): boolean => {
      if (this.hub.sessionsOf(accountId) >= max) return false;
      this.hub.add(this);
      return true;
    };
    const auth = await this.verifyAuth(accessKey, signedAt, signature, admit, max);
    if (!auth) return;
    this.makerScoped = auth.makerScoped;
    this.startKeepalive();
    // A maker session is in the store before `health`, so the maker quotes only once it is covered;
    // cancel on disconnect applies to maker credentials only, and `health` says whether it holds.
    const holdsCancel = cancelOnDisconnect && auth.makerScoped;
    if (auth.makerScoped) {
      const id = await this.context.presence.open(auth.accountId, holdsCancel);
      if (this.closed) this.context.presence.end(id);
      else this.presenceId = id;
    }
    // isMaker: the credential is maker-scoped (issued while the account was an active maker).
    this.send({ kind: 'health', userId: auth.accountId, isMaker: auth.makerScoped, cancelOnDisconnect: holdsCancel });
  }

  /**
   * The account stopped being an active maker (session auditor): its `openRfqs` and `quoteStatus`
   * subscriptions end, each with an `unsubscribed` frame after one `error` saying why. Re-subscribing
   * is refused until the maker is active again. Idempotent: nothing held, nothing sent.
   */
  makerLost(reason: string): void {
    if (this.closed) return;
    const held = [...this.openRfqs];
    const quoteStatus = this.subscriptions.has('quoteStatus');
    if (held.length === 0 && !quoteStatus) return;
    this.send(errorFrame('MAKER_NOT_APPROVED', reason));
    for (const id of held) {
      this.openRfqs.delete(id);
      this.subscriptions.delete(subscriptionKey('openRfqs', id));
      this.hub.unwatchOpenRfqs(this, id);
      this.send({ kind: 'unsubscribed', topic: 'openRfqs', instrumentId: id });
    }
    if (quoteStatus) {
      this.subscriptions.delete('quoteStatus');
      this.send({ kind: 'unsubscribed', topic: 'quoteStatus' });
    }
  }

  /** Null when the session may hold the topic; else why not (UNSUPPORTED_CHANNEL). */
  private async refusal(topic: string, instrumentId: string | undefined): Promise<string | null> {
    if (topic === 'quoteStatus') {
      if (!this.makerScoped) return `quoteStatus: ${MAKER_SCOPE_HINT}`;
      // The maker standing is live, not frozen at the credential's issuance.
      try {
        await activeMaker(this.context.service.db, this.accountId, this.context.service.clock.now());
      } catch (error) {
        if (error instanceof ServiceError) return `quoteStatus: ${error.message}`;
        throw error;
      }
      return null;
    }
    if (!takesInstrument(topic)) return null;
    const refdata = this.context.service.refdata;
    // Listed moments ago through another node, the instrument may be missing from this node's
    // cached snapshot (within its TTL): read the reference data again before refusing.
    const instrument = (await refdata.current()).instruments.get(instrumentId!) ?? (await refdata.reload()).instruments.get(instrumentId!);
    if (!instrument) return `instrument ${JSON.stringify(instrumentId)} is not available`;
    if (topic === 'prices') return null;
    let maker;
    try {
      maker = await activeMaker(this.context.service.db, this.accountId, this.context.service.clock.now());
    } catch (error) {
      if (error instanceof ServiceError) return `openRfqs: ${error.message}`;
      throw error;
    }
    if (!maker.pairs.includes(pairOf(instrument))) return `openRfqs: maker is not approved for ${pairOf(instrument)}`;
    if (!makerServes(maker, instrument)) return `openRfqs: maker has no settlement mode for ${instrument.type === 'PERP' ? 'perp' : 'spot'} instruments`;
    return null;
  }

  private async subscribe(topic: string, instrumentId: string | undefined, fromSeq: number | undefined): Promise<void> {
    if (!isSupportedTopic(topic)) {
      this.send(errorFrame('UNSUPPORTED_CHANNEL', `topic ${JSON.stringify(topic.slice(0, 64))} is not available`));
      return;
    }
    if (takesInstrument(topic) && instrumentId === undefined) {
      this.send(errorFrame('INVALID_REQUEST', `${topic}: \`instrumentId\` required`));
      return;
    }
    if (fromSeq !== undefined && !isAccountTopic(topic)) {
      this.send(errorFrame('INVALID_REQUEST', `${topic}: \`fromSeq\` applies to account topics only`));
      return;
    }
    const selector: Record<string, unknown> = takesInstrument(topic) ? { topic, instrumentId } : { topic };
    const key = subscriptionKey(topic, instrumentId);
    if (this.subscriptions.has(key)) {
      // Re-subscribing is idempotent: echo again, no second start.
      this.send({ kind: 'subscribed', ...selector });
      return;
    }
    const refused = await this.refusal(topic, instrumentId);
    if (this.closed) return;
    if (refused !== null) {
      this.send(errorFrame('UNSUPPORTED_CHANNEL', refused));
      return;
    }
    if (topic === 'prices') {
      this.subscriptions.set(key, { ready: true, floorSeq: 0, pending: [] });
      this.prices.add(instrumentId!);
      this.hub.watchPrices(this, instrumentId!);
      this.send({ kind: 'subscribed', ...selector });
      const current = this.book.currentFrame(instrumentId!);
      if (current) this.send(current);
      return;
    }
    if (topic === 'openRfqs') {
      // No baseline by spec.
      this.subscriptions.set(key, { ready: true, floorSeq: 0, pending: [] });
      this.openRfqs.add(instrumentId!);
      this.hub.watchOpenRfqs(this, instrumentId!);
      this.send({ kind: 'subscribed', ...selector });
      return;
    }
    if (!isAccountTopic(topic)) return;
    const sub: Subscription = { ready: false, floorSeq: 0, pending: [] };
    this.subscriptions.set(key, sub);
    let start: TopicStart;
    try {
      start = await startAccountTopic(this.context.service, this.accountId, topic, fromSeq);
    } catch (error) {
      if (this.subscriptions.get(key) === sub) this.subscriptions.delete(key);
      throw error;
    }
    // Unsubscribed (or closed) while the start was read: nothing more to send.
    if (this.closed || this.subscriptions.get(key) !== sub) return;
    // `seq` (and `resync` when a replay could not be served) on the ack are additive fields.
    this.send({ kind: 'subscribed', ...selector, seq: start.seq, ...(start.resync ? { resync: true } : {}) });
    sub.floorSeq = start.seq;
    for (const frame of start.frames) this.send(start.resync ? { ...frame, resync: true } : frame);
    sub.ready = true;
    for (const frame of sub.pending.splice(0)) this.deliver(topic, frame);
  }

  /** Acknowledged whether or not it was held (spec). Without instrumentId, drops every instrument. */
  private unsubscribe(topic: string, instrumentId: string | undefined): void {
    if (takesInstrument(topic)) {
      const held = topic === 'prices' ? this.prices : this.openRfqs;
      for (const id of [...held]) {
        if (instrumentId !== undefined && id !== instrumentId) continue;
        held.delete(id);
        this.subscriptions.delete(subscriptionKey(topic, id));
        if (topic === 'prices') {
          this.hub.unwatchPrices(this, id);
          this.conflated?.delete(id);
        } else this.hub.unwatchOpenRfqs(this, id);
      }
      this.send(instrumentId === undefined ? { kind: 'unsubscribed', topic } : { kind: 'unsubscribed', topic, instrumentId });
      return;
    }
    this.subscriptions.delete(topic);
    this.send({ kind: 'unsubscribed', topic });
  }

  /** A server `ping` per interval; two consecutive unanswered ones close the session. */
  private startKeepalive(): void {
    this.keepalive = setInterval(() => {
      if (this.closed) return;
      if (this.unansweredPings >= 2) {
        this.closeWith(CLOSE_KEEPALIVE_TIMEOUT, 'keepalive timeout');
        return;
      }
      this.unansweredPings++;
      this.send({ kind: 'ping' });
    }, this.context.ws.pingIntervalMs);
    this.keepalive.unref();
  }

  protected release(): void {
    if (this.keepalive) clearInterval(this.keepalive);
    this.keepalive = null;
    if (this.conflateTimer) clearTimeout(this.conflateTimer);
    this.conflateTimer = null;
    this.conflated = null;
    this.subscriptions.clear();
    if (this.presenceId !== null) this.context.presence.end(this.presenceId);
    this.presenceId = null;
    this.hub.remove(this, { openRfqs: this.openRfqs, prices: this.prices });
  }
}
