/**
 * Repeated identical errors logged once per window: a failure that a sweep meets on
 * every round (a row the store refuses, a store that is down) would otherwise write a full stack
 * several times a second for as long as it lasts. The first occurrence of a (message, error
 * message) pair is logged in full; repeats within `windowMs` are counted, and the next one after
 * the window is logged with `repeated`, the number left out meanwhile. Distinct errors are
 * logged as they come. The map is bounded: at `maxKeys` the oldest entry goes.
 */
import type { Logger } from 'pino';

export const REPEATED_ERROR_WINDOW_MS = 60_000;
const MAX_KEYS = 256;

interface Seen {
  loggedAt: number;
  suppressed: number;
}

export class RepeatLimitedLog {
  readonly #logger: Logger;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #seen = new Map<string, Seen>();

  constructor(logger: Logger, windowMs = REPEATED_ERROR_WINDOW_MS, now: () => number = Date.now) {
    this.#logger = logger;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  error(fields: Record<string, unknown> & { err: unknown }, message: string): void {
    const key = `${message}\u0000${fields.err instanceof Error ? fields.err.message : String(fields.err)}`;
    const now = this.#now();
    const seen = this.#seen.get(key);
    if (seen && now - seen.loggedAt < this.#windowMs) {
      seen.suppressed += 1;
      return;
    }
    this.#seen.delete(key);
    if (this.#seen.size >= MAX_KEYS) this.#seen.delete(this.#seen.keys().next().value!);
    this.#seen.set(key, { loggedAt: now, suppressed: 0 });
    this.#logger.error(seen && seen.suppressed > 0 ? { ...fields, repeated: seen.suppressed } : fields, message);
  }
}
