/**
 * Runs a deadline-driven use case (auction close, settlement expiry) when due: a timer per
 * deadline this node learned of, plus a periodic sweep of the store that catches deadlines set by
 * other nodes or before a restart. Due ids go into one queue that at most `concurrency` drainers
 * empty in batches of up to `batchSize`, so a burst of deadlines costs a few transactions rather
 * than one each, and never more connections than the drainers. The use case claims its rows
 * itself (FOR UPDATE SKIP LOCKED and a status guard), so racing timers, sweeps or nodes are safe.
 */
import type { Logger } from 'pino';
import { RepeatLimitedLog } from './repeat-limited-log.ts';

export interface DeadlineWorkerOptions {
  name: string;
  sweepIntervalMs: number;
  /** Ids of rows due now, oldest first. */
  findDue: (limit: number) => Promise<string[]>;
  /** Processes a batch of ids; must be idempotent and safe to race. */
  processBatch: (ids: string[]) => Promise<unknown>;
  /** Drainers running at once (each holds one store connection while it works). */
  concurrency: number;
  /** Most ids handled in one call of processBatch. */
  batchSize: number;
  logger: Logger;
}

export class DeadlineWorker {
  readonly #options: DeadlineWorkerOptions;
  /** A batch failing the same way on every sweep is logged once a window, not on every round. */
  readonly #errors: RepeatLimitedLog;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #queue = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #handedOff = new Set<Promise<void>>();
  #sweepTimer: NodeJS.Timeout | null = null;
  #sweeping = false;
  #stopped = false;

  constructor(options: DeadlineWorkerOptions) {
    this.#options = options;
    this.#errors = new RepeatLimitedLog(options.logger);
  }

  get name(): string {
    return this.#options.name;
  }

  start(): void {
    this.#sweepTimer = setInterval(() => void this.sweep(), this.#options.sweepIntervalMs);
    this.#sweepTimer.unref();
    void this.sweep();
  }

  /** Runs `id` at `atMs` (unix ms). */
  schedule(id: string, atMs: number): void {
    if (this.#stopped || this.#timers.has(id)) return;
    const timer = setTimeout(() => {
      this.#timers.delete(id);
      // Timers may fire up to a millisecond early; running then would find nothing due and leave
      // the deadline to the sweep. Wait out the remainder instead.
      if (Date.now() < atMs) this.schedule(id, atMs);
      else this.#enqueue([id]);
    }, Math.max(0, atMs - Date.now()));
    timer.unref();
    this.#timers.set(id, timer);
  }

  #enqueue(ids: string[]): void {
    if (this.#stopped) return;
    for (const id of ids) this.#queue.add(id);
    while (this.#inFlight.size < this.#options.concurrency && this.#queue.size > 0) {
      const drainer: Promise<void> = this.#drain().finally(() => {
        this.#inFlight.delete(drainer);
        if (this.#queue.size > 0 && !this.#stopped) this.#enqueue([]);
      });
      this.#inFlight.add(drainer);
    }
  }

  async #drain(): Promise<void> {
    while (this.#queue.size > 0 && !this.#stopped) {
      const batch: string[] = [];
      for (const id of this.#queue) {
        batch.push(id);
        this.#queue.delete(id);
        if (batch.length >= this.#options.batchSize) break;
      }
      try {
        await this.#options.processBatch(batch);
      } catch (error) {
        this.#errors.error({ err: error, ids: batch.length, worker: this.#options.name }, 'deadline batch failed; the sweep retries it');
      }
    }
  }

  /**
   * Work a batch handed off so its drainer can take the next id (it holds no slot): failures are
   * logged as a batch's are, and `stop` waits for it.
   */
  track(work: Promise<void>): void {
    const tracked: Promise<void> = work
      .catch((error: unknown) => this.#errors.error({ err: error, worker: this.#options.name }, 'handed-off work failed; the sweep retries it'))
      .finally(() => this.#handedOff.delete(tracked));
    this.#handedOff.add(tracked);
  }

  async sweep(): Promise<void> {
    if (this.#sweeping || this.#stopped) return;
    this.#sweeping = true;
    try {
      this.#enqueue(await this.#options.findDue(500));
    } catch (error) {
      if (!this.#stopped) this.#options.logger.warn({ err: error, worker: this.#options.name }, 'deadline sweep failed');
    } finally {
      this.#sweeping = false;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#queue.clear();
    await Promise.allSettled([...this.#inFlight]);
    await Promise.allSettled([...this.#handedOff]);
  }
}
