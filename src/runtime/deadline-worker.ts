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
  readonly #timers = new Map<string, { timer: NodeJS.Timeout; atMs: number }>();
  readonly #queue = new Set<string>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #handedOff = new Set<Promise<void>>();
  #sweepTimer: NodeJS.Timeout | null = null;
  /** The sweep running now, if any. */
  #sweeping: Promise<void> | null = null;
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
    this.#timers.set(id, { timer, atMs });
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
    this.#sweeping = this.#options
      .findDue(500)
      .then((ids) => this.#enqueue(ids))
      .catch((error: unknown) => {
        if (!this.#stopped) this.#options.logger.warn({ err: error, worker: this.#options.name }, 'deadline sweep failed');
      })
      .finally(() => {
        this.#sweeping = null;
      });
    await this.#sweeping;
  }

  /**
   * Resolves once what was due at the call has had its chance: a timer due by then that has not
   * fired yet (a loaded loop fires late) runs now, a sweep begun after the call has ended, and
   * every batch queued by then (by them, or already in flight) is processed. Tests wait on it to
   * show that something does not happen (a second close, an expiry by the wall clock) instead of
   * waiting for a length of time.
   */
  async settled(): Promise<void> {
    const now = Date.now();
    const due = [...this.#timers].filter(([, { atMs }]) => atMs <= now).map(([id]) => id);
    for (const id of due) {
      clearTimeout(this.#timers.get(id)!.timer);
      this.#timers.delete(id);
    }
    this.#enqueue(due);
    // A sweep running now may have read before the call: the next one is ours.
    while (this.#sweeping) await this.#sweeping;
    await this.sweep();
    while (!this.#stopped && (this.#inFlight.size > 0 || this.#handedOff.size > 0)) await Promise.allSettled([...this.#inFlight, ...this.#handedOff]);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#sweepTimer) clearInterval(this.#sweepTimer);
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#queue.clear();
    await Promise.allSettled([...this.#inFlight]);
    await Promise.allSettled([...this.#handedOff]);
  }
}
