/**
 * Auction closes on their own event loop (docs/decisions/0020-auction-closes.md). Under full HTTP
 * load the node's event loop is saturated: a close timer fires late and every round trip of the
 * close transaction waits for a turn of that loop, so closes committed 2-3x later than on a quiet
 * node even though the database lane (work-lane.ts) gave them a connection at once. Here the
 * auction closer runs in a worker_thread with its own event loop and its own small PostgreSQL
 * pool: a node with only the `auctions` worker, inside the node's process. The node posts each
 * auction it schedules; the thread posts back what the node must react to:
 * - `selected`: a quote won at the close (the node's settlement-expiry timer);
 * - `outbox`: the close committed frames (the node's dispatcher wakes, other nodes are notified);
 * - `closed`: the close itself (the node's `auctionCloses` observer).
 * PostgreSQL only: PGlite is one in-process connection that a thread cannot open a second time,
 * so with PGlite the closer stays on the node's loop. A thread that dies is started again after a
 * second; meanwhile `/readyz` says so, and the new thread's sweep closes whatever came due.
 */
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ClosedAuction } from '../services/rfq/close-auction.ts';
import type { ChainSettings } from '../chain/chain-context.ts';

/** What the thread is started with (structured-clone data only: no functions). */
export interface AuctionThreadData {
  databaseUrl: string;
  /** The thread's own connections. */
  poolSize: number;
  secretKey: string;
  siweDomain?: string;
  chainId?: number;
  /** The chain whose custody key signs permit2 winners' permits; null: no chain. */
  chain: Omit<ChainSettings, 'durableBlock'> | null;
  logLevel: string;
}

export type ToAuctionThread = { kind: 'schedule'; rfqId: string; atMs: number } | { kind: 'settle'; id: number } | { kind: 'stop' };

export type FromAuctionThread =
  | { kind: 'ready' }
  | { kind: 'failed'; message: string }
  | { kind: 'closed'; closed: ClosedAuction }
  | { kind: 'selected'; rfqId: string; settlementDeadlineSecs: number }
  | { kind: 'outbox' }
  | { kind: 'settled'; id: number };

/** The node's reactions to the thread's closes (run on the node's loop). */
export interface AuctionThreadEvents {
  closed(closed: ClosedAuction): void;
  selected(rfqId: string, settlementDeadlineSecs: number): void;
  outbox(): void;
}

const RESTART_DELAY_MS = 1000;
const STOP_TIMEOUT_MS = 10_000;

export class AuctionThread {
  readonly #data: AuctionThreadData;
  readonly #events: AuctionThreadEvents;
  readonly #logger: Logger;
  #worker: Worker | null = null;
  #ready = false;
  #stopping = false;
  #restart: NodeJS.Timeout | null = null;
  /** `settled` calls waiting for the thread's answer, by the id posted with them. */
  readonly #settling = new Map<number, () => void>();
  #nextSettle = 0;

  private constructor(data: AuctionThreadData, events: AuctionThreadEvents, logger: Logger) {
    this.#data = data;
    this.#events = events;
    this.#logger = logger;
  }

  /** Starts the thread; resolves once it closes auctions (store open, reference data loaded). */
  static async start(data: AuctionThreadData, events: AuctionThreadEvents, logger: Logger): Promise<AuctionThread> {
    const thread = new AuctionThread(data, events, logger);
    await thread.#spawn();
    return thread;
  }

  /** False while the thread is down (between a crash and its restart). */
  get running(): boolean {
    return this.#ready;
  }

  /** Closes `rfqId` at `atMs`. While the thread is down this is dropped: its successor's sweep finds the auction. */
  schedule(rfqId: string, atMs: number): void {
    if (this.#ready) this.#worker?.postMessage({ kind: 'schedule', rfqId, atMs } satisfies ToAuctionThread);
  }

  /**
   * Resolves once the thread's closer has swept after the call and finished what it found
   * (DeadlineWorker.settled); the thread's `closed` messages for those closes came before. While
   * the thread is down it resolves at once: nothing closes then.
   */
  settled(): Promise<void> {
    const worker = this.#worker;
    if (!this.#ready || !worker) return Promise.resolve();
    const id = this.#nextSettle++;
    return new Promise<void>((resolve) => {
      this.#settling.set(id, resolve);
      worker.postMessage({ kind: 'settle', id } satisfies ToAuctionThread);
    });
  }

  /** Ends the thread at once, as a crash would (tests); it is started again as after any exit. */
  async terminate(): Promise<void> {
    await this.#worker?.terminate();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#restart) clearTimeout(this.#restart);
    const worker = this.#worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // The thread finishes its batches in flight and closes its pool; past the timeout it is ended.
    worker.postMessage({ kind: 'stop' } satisfies ToAuctionThread);
    const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  #spawn(): Promise<void> {
    // No flags of the node's command line: preloads (the benchmark's probe) are the main thread's business.
    const worker = new Worker(new URL('./auction-thread-entry.ts', import.meta.url), { workerData: this.#data, name: 'auction-closer', execArgv: [] });
    this.#worker = worker;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      worker.on('message', (message: FromAuctionThread) => {
        switch (message.kind) {
          case 'ready':
            started = true;
            this.#ready = true;
            resolve();
            break;
          case 'failed':
            reject(new Error(`auction thread: ${message.message}`));
            break;
          case 'closed':
            this.#events.closed(message.closed);
            break;
          case 'selected':
            this.#events.selected(message.rfqId, message.settlementDeadlineSecs);
            break;
          case 'outbox':
            this.#events.outbox();
            break;
          case 'settled':
            this.#settling.get(message.id)?.();
            this.#settling.delete(message.id);
            break;
        }
      });
      worker.on('error', (error) => {
        if (started) this.#logger.error({ err: error }, 'auction thread failed');
        else reject(error);
      });
      worker.on('exit', (code) => {
        if (this.#worker === worker) {
          this.#worker = null;
          this.#ready = false;
        }
        // A thread gone closes nothing more: its waiters need no answer.
        for (const resolve of this.#settling.values()) resolve();
        this.#settling.clear();
        if (!started) reject(new Error(`auction thread exited (code ${code}) before it was ready`));
        else if (!this.#stopping) {
          this.#logger.error({ code }, `auction thread exited; starting another in ${RESTART_DELAY_MS} ms`);
          this.#restartLater();
        }
      });
    });
  }

  #restartLater(): void {
    this.#restart = setTimeout(() => {
      this.#restart = null;
      if (this.#stopping) return;
      this.#spawn().catch((error: unknown) => {
        this.#logger.error({ err: error }, 'auction thread did not start; trying again');
        this.#restartLater();
      });
    }, RESTART_DELAY_MS);
  }
}
