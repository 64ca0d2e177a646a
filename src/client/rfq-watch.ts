/**
 * Follows one RFQ of the signed-in taker: its competing quotes (with re-prices) and its status
 * until a terminal one. Pushes come over the WebSocket `quotes` and `rfqStatus` topics; REST
 * polling covers a session that cannot open (the watch then runs on REST alone), frames missed
 * while reconnecting, and a lost frame, so the watch never depends on the socket alone.
 *
 *   const watch = new RfqWatch(client);
 *   await watch.start();                      // before creating the RFQ, so no quote is missed
 *   const { rfqId } = await client.createRfq(...);
 *   watch.track(rfqId);
 *   watch.on('quote', (quote) => ...);        // new quote or a new version of one
 *   watch.on('status', (rfq) => ...);         // each status change
 *   const final = await watch.terminal(timeoutMs);
 *   watch.close();
 */
import { EventEmitter } from 'node:events';
import type { RfqClient } from './rfq-client.ts';
import type { QuoteUpdateFrame, RfqStatusFrame, ServerFrame, UnknownFrame } from './frames.ts';
import type { RfqWsSession } from './ws-session.ts';
import type { Quote, Rfq, RfqStatus } from './types.ts';

export const TERMINAL_STATUSES: readonly RfqStatus[] = ['SETTLED', 'FAILED', 'CANCELLED'];
export const isTerminal = (status: RfqStatus): boolean => TERMINAL_STATUSES.includes(status);

export interface WatchEvents {
  quote: [Quote];
  status: [Rfq];
  /** Transport changes worth telling a user: `websocket`, `rest`, `reconnecting`, `reconnected`. */
  transport: [string];
}

export interface WatchOptions {
  /** false: REST polling only. */
  webSocket?: boolean;
  /** Polling period while the socket is up (a safety net) and without it. */
  pollWithSocketMs?: number;
  pollWithoutSocketMs?: number;
  /** How long to wait for the socket before falling back to REST. */
  connectTimeoutMs?: number;
}

/** Frames that arrive before `track()` names the RFQ (the 202 can trail the first quote). */
const MAX_EARLY_FRAMES = 1000;

export class RfqWatch extends EventEmitter<WatchEvents> {
  readonly #client: RfqClient;
  readonly #options: WatchOptions;
  #session: RfqWsSession | null = null;
  #rfqId: string | null = null;
  #rfq: Rfq | undefined;
  readonly #quotes = new Map<string, Quote>();
  #early: Array<ServerFrame | UnknownFrame> = [];
  #pollTimer: NodeJS.Timeout | null = null;
  #polling = false;
  #closed = false;
  #changed: Array<() => void> = [];

  constructor(client: RfqClient, options: WatchOptions = {}) {
    super();
    this.#client = client;
    this.#options = options;
  }

  /** Which transport carries pushes: `websocket`, or `rest` when the socket could not open. */
  get transport(): 'websocket' | 'rest' {
    return this.#session?.state === 'open' ? 'websocket' : 'rest';
  }

  get rfq(): Rfq | undefined {
    return this.#rfq;
  }

  /** Latest version of each quote, in arrival order. */
  quotes(): Quote[] {
    return [...this.#quotes.values()];
  }

  /** Opens and subscribes the socket (best effort); returns the transport in use. */
  async start(): Promise<'websocket' | 'rest'> {
    if (this.#options.webSocket !== false) {
      const session = this.#client.wsSession();
      session.on('frame', (frame) => this.#frame(frame));
      session.on('reconnecting', () => this.emit('transport', 'reconnecting'));
      session.on('open', () => {
        if (this.#session !== session) return;
        this.emit('transport', 'reconnected');
        // Pushes may have been missed while reconnecting: catch up at once.
        void this.refresh();
      });
      session.on('closed', () => this.#schedulePoll());
      try {
        await withTimeout(session.connect(), this.#options.connectTimeoutMs ?? 5000);
        await withTimeout(Promise.all([session.subscribe('quotes'), session.subscribe('rfqStatus')]), this.#options.connectTimeoutMs ?? 5000);
        this.#session = session;
      } catch {
        session.close();
      }
    }
    this.emit('transport', this.transport);
    return this.transport;
  }

  /** Names the RFQ to follow and reads its current state. */
  async track(rfqId: string): Promise<void> {
    this.#rfqId = rfqId;
    for (const frame of this.#early.splice(0)) this.#frame(frame);
    await this.refresh();
    this.#schedulePoll();
  }

  /** Reads the RFQ and its quotes over REST now (used after a reconnect and before a decision). */
  async refresh(): Promise<void> {
    const rfqId = this.#rfqId;
    if (!rfqId || this.#closed) return;
    const rfq = await this.#client.getRfq(rfqId);
    if (rfq.status === 'PENDING' || this.#quotes.size === 0) {
      const page = await this.#client.rfqQuotes(rfqId, { limit: 100 });
      for (const quote of page.items) this.#quote(quote);
    }
    this.#status(rfq);
  }

  /** Resolves true once `done()` holds, false at `deadline` (local unix ms). */
  until(done: () => boolean, deadline: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (done()) return resolve(true);
      const check = () => {
        if (!done()) return void this.#changed.push(check);
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.#changed = this.#changed.filter((waiter) => waiter !== check);
        resolve(done());
      }, Math.max(0, deadline - Date.now()));
      this.#changed.push(check);
    });
  }

  /** The RFQ once terminal; undefined if `timeoutMs` passes first. */
  async terminal(timeoutMs: number): Promise<Rfq | undefined> {
    const reached = await this.until(() => this.#rfq !== undefined && isTerminal(this.#rfq.status), Date.now() + timeoutMs);
    return reached ? this.#rfq : undefined;
  }

  close(): void {
    this.#closed = true;
    if (this.#pollTimer) clearTimeout(this.#pollTimer);
    this.#session?.close();
    for (const waiter of this.#changed.splice(0)) waiter();
  }

  #frame(frame: ServerFrame | UnknownFrame): void {
    if (frame.kind !== 'quoteUpdate' && frame.kind !== 'rfqStatus') return;
    if (this.#rfqId === null) {
      if (this.#early.length < MAX_EARLY_FRAMES) this.#early.push(frame);
      return;
    }
    if (frame.kind === 'quoteUpdate') {
      const { kind: _kind, seq: _seq, resync: _resync, ...quote } = frame as QuoteUpdateFrame;
      if (quote.rfqId === this.#rfqId) this.#quote(quote);
    } else {
      const { kind: _kind, seq: _seq, resync: _resync, ...rfq } = frame as RfqStatusFrame;
      if (rfq.id === this.#rfqId) this.#status(rfq);
    }
  }

  #quote(quote: Quote): void {
    const known = this.#quotes.get(quote.quoteId);
    // Versions only grow; a status change keeps the version, so compare both.
    if (known && (known.version > quote.version || (known.version === quote.version && known.status === quote.status))) return;
    this.#quotes.set(quote.quoteId, quote);
    this.emit('quote', quote);
    this.#wake();
  }

  #status(rfq: Rfq): void {
    const known = this.#rfq;
    // A terminal status is final: a stale read or frame must not move it back.
    if (known && (isTerminal(known.status) || known.status === rfq.status)) return;
    this.#rfq = rfq;
    this.emit('status', rfq);
    this.#wake();
  }

  #wake(): void {
    for (const waiter of this.#changed.splice(0)) waiter();
  }

  #schedulePoll(): void {
    if (this.#closed || this.#polling || this.#rfqId === null) return;
    if (this.#pollTimer) clearTimeout(this.#pollTimer);
    const periodMs = this.transport === 'websocket' ? (this.#options.pollWithSocketMs ?? 2000) : (this.#options.pollWithoutSocketMs ?? 500);
    this.#pollTimer = setTimeout(async () => {
      this.#pollTimer = null;
      this.#polling = true;
      try {
        if (!this.#rfq || !isTerminal(this.#rfq.status)) await this.refresh();
      } catch {
        // A failed poll is retried at the next period; the caller's deadline bounds the wait.
      } finally {
        this.#polling = false;
      }
      if (!this.#rfq || !isTerminal(this.#rfq.status)) this.#schedulePoll();
    }, periodMs);
    this.#pollTimer.unref();
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    promise.then((value) => {
      clearTimeout(timer);
      resolve(value);
    }, (error: unknown) => {
      clearTimeout(timer);
      reject(error as Error);
    });
  });
}
