/**
 * A background pass repeated on a timer: the next pass is scheduled only when the previous one
 * has ended (a slow pass never overlaps the next), a failed pass is logged and retried at the
 * next interval, and `stop` waits for the pass in flight. The chain workers all run on one.
 */
import type { Logger } from 'pino';

export interface PollLoopOptions {
  /** One pass of the work. */
  pass: () => Promise<unknown>;
  /** Delay before the next pass, read after each pass (settings may say). */
  intervalMs: () => number;
  logger: Logger;
  /** Logged with the error when a pass fails. */
  failureMessage: string;
}

export class PollLoop {
  readonly #o: PollLoopOptions;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #stopped = false;
  /** `afterPass` callers waiting for the next pass to begin and end. */
  #waiting: Array<() => void> = [];

  constructor(options: PollLoopOptions) {
    this.#o = options;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
    for (const resolve of this.#waiting.splice(0)) resolve();
  }

  /**
   * Resolves once a pass begun after the call has ended (failed or not), or the loop stopped:
   * whatever the pass would do by then it has had its chance to. Tests wait on it to show that
   * something does not happen.
   */
  afterPass(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      const waiting = this.#waiting.splice(0);
      this.#running = this.#o
        .pass()
        .then(() => undefined)
        .catch((error: unknown) => this.#o.logger.warn({ err: error }, this.#o.failureMessage))
        .finally(() => {
          for (const resolve of waiting) resolve();
          this.#running = null;
          this.#schedule(this.#o.intervalMs());
        });
    }, delayMs);
    this.#timer.unref();
  }
}
