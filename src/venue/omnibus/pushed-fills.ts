/**
 * The omnibus's fills as the venue pushed them, kept for a while (each trade id once) so the
 * worker books them without reading them back: an IOC's answer waits here for its fills, and
 * each pass books live orders' fills from here. What falls out (older than `keepMs`, or past
 * `max`) has long been booked; a lost push is made up by the worker's REST read.
 */
import type { PushedFill } from '../venue-stream.ts';

const KEEP_MS = 10 * 60_000;
const MAX_KEPT = 10_000;

export class PushedFills {
  readonly #keepMs: number;
  readonly #max: number;
  #kept: Array<{ fill: PushedFill; at: number }> = [];
  readonly #tids = new Set<number>();
  readonly #listeners = new Set<() => void>();

  constructor(keepMs = KEEP_MS, max = MAX_KEPT) {
    this.#keepMs = keepMs;
    this.#max = max;
  }

  add(fills: readonly PushedFill[], now: number): void {
    for (const fill of fills) {
      if (this.#tids.has(fill.tid)) continue;
      this.#tids.add(fill.tid);
      this.#kept.push({ fill, at: now });
    }
    let drop = 0;
    while (drop < this.#kept.length && (this.#kept.length - drop > this.#max || now - this.#kept[drop]!.at > this.#keepMs)) drop++;
    for (const { fill } of this.#kept.splice(0, drop)) this.#tids.delete(fill.tid);
    for (const listener of [...this.#listeners]) listener();
  }

  /** Fills of venue time `fromMs` or later, oldest pushed first. */
  since(fromMs: number): PushedFill[] {
    return this.#kept.filter(({ fill }) => fill.time >= fromMs).map(({ fill }) => fill);
  }

  /** The fills that `match`, once `complete` says they are all here; null when `timeoutMs` passes first. */
  waitFor(match: (fill: PushedFill) => boolean, complete: (fills: PushedFill[]) => boolean, timeoutMs: number): Promise<PushedFill[] | null> {
    const matching = () => this.#kept.filter(({ fill }) => match(fill)).map(({ fill }) => fill);
    const now = matching();
    if (now.length > 0 && complete(now)) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (value: PushedFill[] | null) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        resolve(value);
      };
      const check = () => {
        const fills = matching();
        if (fills.length > 0 && complete(fills)) done(fills);
      };
      const timer = setTimeout(() => done(null), timeoutMs);
      this.#listeners.add(check);
    });
  }
}
