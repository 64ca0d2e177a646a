/**
 * Runs a deadline-driven use case (auction close, settlement expiry) exactly when due: a timer per
 * deadline this node learned of, plus a periodic sweep of the store that catches deadlines set by
 * other nodes or before a restart. The use case itself claims its row (FOR UPDATE SKIP LOCKED and
 * a status guard), so a timer and a sweep, or two nodes, racing for one deadline do it once.
 */
import type { Logger } from 'pino';

export interface DeadlineWorkerOptions {
  name: string;
  sweepIntervalMs: number;
  /** Ids of rows due now, oldest first. */
  findDue: (limit: number) => Promise<string[]>;
  /** Processes one id; must be idempotent and safe to race. */
  process: (id: string) => Promise<unknown>;
  /** How many ids are processed at once (bounded by the store's pool). */
  concurrency: number;
  logger: Logger;
}

export class DeadlineWorker {
  readonly #options: DeadlineWorkerOptions;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #inFlight = new Set<Promise<unknown>>();
  #sweepTimer: NodeJS.Timeout | null = null;
  #sweeping = false;
  #stopped = false;

  constructor(options: DeadlineWorkerOptions) {
    this.#options = options;
  }

  start(): void {
    this.#sweepTimer = setInterval(() => void this.sweep(), this.#options.sweepIntervalMs);
    this.#sweepTimer.unref();
    void this.sweep();
  }

  /** Runs `id` at `atMs` (unix ms). */
  schedule(id: string, atMs: number): void {
    if (this.#stopped || this.#timers.has(id)) return;
    const delay = Math.max(0, atMs - Date.now());
    const timer = setTimeout(() => {
      this.#timers.delete(id);
      // Timers may fire up to a millisecond early; running then would find nothing due and leave
      // the deadline to the sweep. Wait out the remainder instead.
      if (Date.now() < atMs) this.schedule(id, atMs);
      else this.#run(id);
    }, delay);
    timer.unref();
    this.#timers.set(id, timer);
  }

  #run(id: string): void {
    if (this.#stopped) return;
    const task = this.#options.process(id).catch((error: unknown) => {
      this.#options.logger.error({ err: error, id, worker: this.#options.name }, 'deadline task failed; the sweep retries it');
    });
    this.#inFlight.add(task);
    void task.finally(() => this.#inFlight.delete(task));
  }

  async sweep(): Promise<void> {
    if (this.#sweeping || this.#stopped) return;
    this.#sweeping = true;
    try {
      const ids = await this.#options.findDue(500);
      for (let i = 0; i < ids.length && !this.#stopped; i += this.#options.concurrency) {
        await Promise.all(ids.slice(i, i + this.#options.concurrency).map((id) => this.#options.process(id).catch((error: unknown) => {
          this.#options.logger.error({ err: error, id, worker: this.#options.name }, 'deadline task failed');
        })));
      }
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
    await Promise.allSettled([...this.#inFlight]);
  }
}
