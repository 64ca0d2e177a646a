/**
 * One `/v1/rfq/prices/ws` connection (DESIGN.md section 4): the same `auth` frame as
 * `/v1/rfq/ws`, signing this path, from an active maker; then `ladder` frames, each validated and
 * fed to the price book. A refused ladder gets an `error` frame and the socket stays open.
 * Keepalive is native WebSocket ping/pong (spec): a peer that has not answered the previous ping
 * when the next is due is cut off.
 */
import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import { ServiceError } from '../domain/errors.ts';
import { ladderTop } from '../domain/prices/index.ts';
import { activeMakerFrom, pairOf } from '../services/rfq/maker-access.ts';
import { WsConnection } from './connection.ts';
import { PRICES_WS_PATH, errorFrame, parseIngestFrame } from './frames.ts';
import type { SessionHub } from './hub.ts';
import type { WsContext } from './ws-context.ts';
import type { PriceBook } from './price-book.ts';
import { instrumentNotFound } from '../domain/rfq/instrument-not-found.ts';

export class PriceIngestSession extends WsConnection {
  private makerId = '';
  private heartbeat: NodeJS.Timeout | null = null;
  private alive = true;
  /** Counted in the hub's per-account ingest sessions from admission until release. */
  private holdsIngestSlot = false;
  private readonly book: PriceBook;

  constructor(socket: WebSocket, context: WsContext, hub: SessionHub, book: PriceBook, logger: Logger, source: string) {
    super(socket, context, hub, logger, source, PRICES_WS_PATH);
    this.book = book;
    socket.on('pong', () => {
      this.alive = true;
    });
  }

  protected async handle(raw: string | null): Promise<void> {
    const frame = raw === null ? { kind: 'invalid' as const, message: 'binary frames are not accepted' } : parseIngestFrame(raw);
    if (!this.authenticated) {
      if (frame.kind !== 'auth') return this.refuse(frame.kind === 'invalid' ? frame.message : 'the first frame must be `auth`');
      const max = this.context.ws.maxSessionsPerAccount;
      const auth = await this.verifyAuth(frame.accessKey, frame.signedAt, frame.signature, (accountId) => this.hub.ingestSessions.tryAcquire(accountId, max), max);
      if (!auth) return;
      this.holdsIngestSlot = true;
      const deps = this.context.service;
      let makerId: string;
      try {
        makerId = activeMakerFrom(await deps.quoteCaches.maker(deps.db, auth.accountId, deps.clock.now(), true), deps.clock.now()).makerId;
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        // Authenticated, but this socket is for makers only: same refusal as a failed handshake.
        this.authenticated = false;
        this.releaseIngestSlot();
        return this.refuse(`price ingest needs an active maker: ${error.message}`);
      }
      if (this.closed) return;
      this.makerId = makerId;
      this.startHeartbeat();
      this.send({ kind: 'health', userId: auth.accountId, isMaker: true });
      return;
    }
    switch (frame.kind) {
      case 'auth':
        this.send(errorFrame('INVALID_REQUEST', 'already authenticated'));
        return;
      case 'invalid':
        this.send(errorFrame('INVALID_REQUEST', frame.message));
        return;
      case 'ladder':
        return this.ladder(frame.instrumentId, frame.bids, frame.asks);
    }
  }

  private async ladder(instrumentId: string, bids: unknown, asks: unknown): Promise<void> {
    const deps = this.context.service;
    const now = deps.clock.now();
    try {
      let { instruments } = await deps.refdata.current();
      // Listed moments ago through another node, the instrument may be missing from this node's
      // cached snapshot (within its TTL): read the reference data again before refusing.
      if (!instruments.has(instrumentId)) ({ instruments } = await deps.refdata.reload());
      const instrument = instruments.get(instrumentId);
      if (!instrument) throw instrumentNotFound(String(instrumentId), instruments.keys());
      if (!instrument.enabled) throw new ServiceError('INSTRUMENT_DISABLED', `instrument ${instrumentId} is disabled`);
      // The maker record is cached for a second (as on the quote path): a suspension bites within it.
      const maker = activeMakerFrom(await deps.quoteCaches.maker(deps.db, this.accountId, now), now);
      if (!maker.pairs.includes(pairOf(instrument))) throw new ServiceError('MAKER_NOT_APPROVED', `maker is not approved for ${pairOf(instrument)}`);
      // The price band: every level near the instrument's last trade (none before its first).
      const { ladderBandBps } = await deps.settings.current(now);
      const reference = ladderBandBps === 0 ? null : await deps.lastTrades.price(deps.db, instrument, now);
      const top = ladderTop(bids, asks, instrument.baseDecimals, reference === null ? null : { reference, bandBps: ladderBandBps });
      if (this.closed) return;
      this.book.applyLocal(this.makerId, instrumentId, instrument.baseDecimals, top, this);
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      this.send({ ...errorFrame(error.code, error.message), ...(error.details ? { details: error.details } : {}) });
    }
  }

  private startHeartbeat(): void {
    this.heartbeat = setInterval(() => {
      if (this.closed) return;
      if (!this.alive) {
        this.socket.terminate();
        return;
      }
      this.alive = false;
      this.socket.ping();
    }, this.context.ws.pingIntervalMs);
    this.heartbeat.unref();
  }

  protected release(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    if (this.makerId) this.book.withdraw(this.makerId, this);
    this.releaseIngestSlot();
  }

  private releaseIngestSlot(): void {
    if (!this.holdsIngestSlot) return;
    this.holdsIngestSlot = false;
    this.hub.ingestSessions.release(this.accountId);
  }

  /** This socket is for active makers only: it ends as a failed handshake would. */
  makerLost(reason: string): void {
    this.refuse(`price ingest needs an active maker: ${reason}`);
  }
}
