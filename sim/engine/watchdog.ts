/**
 * Every wait of a run is bounded. The driver's and the checks' own waits have their timeouts, but
 * a run also awaits things it does not control (a node's start or stop, a request the service
 * never answers, an RPC to anvil, a store that a transaction holds): any of them left pending
 * would hang the run and hide its seed and action log behind a test timeout. A run therefore
 * moves through named phases (a step's action, its checks, each wait of the quiet end); a phase
 * that outlasts its budget fails the run with a `stall` finding naming the step and the phase.
 */

/** A phase with no end in this long is stuck: longer than any bounded wait inside one (90 s). */
export const PHASE_BUDGET_MS = 150_000;

export class Stalled extends Error {}

export class Watchdog {
  phase = 'start';
  #since = Date.now();
  readonly #started = Date.now();
  readonly #budgetMs: number;
  readonly #totalMs: number;

  /** `totalMs`: the whole run's budget too (a test's timeout must not hide what the run found). */
  constructor(budgetMs = PHASE_BUDGET_MS, totalMs = Infinity) {
    this.#budgetMs = budgetMs;
    this.#totalMs = totalMs;
  }

  enter(phase: string): void {
    this.phase = phase;
    this.#since = Date.now();
  }

  /** Seconds since the run started (for the verbose log). */
  get elapsed(): string {
    return `+${((Date.now() - this.#started) / 1000).toFixed(1)}s`;
  }

  /** Settles as `body` does, or rejects with `Stalled` once the current phase outlasts the budget (or the run its total). */
  async guard<T>(body: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setInterval(() => {
        const ms = Date.now() - this.#since;
        if (ms > this.#budgetMs) reject(new Stalled(`${this.phase}: no progress for ${(ms / 1000).toFixed(0)} s`));
        else if (Date.now() - this.#started > this.#totalMs) reject(new Stalled(`${this.phase}: the run's ${(this.#totalMs / 1000).toFixed(0)} s are up`));
      }, 1000);
    });
    try {
      return await Promise.race([body, stalled]);
    } finally {
      clearInterval(timer);
    }
  }
}

/** `promise`'s value, or `null` when it has not settled within `ms` (it is then left to itself). */
export async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([promise.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
}
