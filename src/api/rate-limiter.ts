/**
 * Fixed one-second windows per bucket (access key or source address) that hold across nodes
 * (store/shared-windows.ts), synced every `syncIntervalMs`: the cluster-wide limit overshoots by
 * at most what other nodes admit within one sync interval.
 */
import type { Db } from '../store/transaction.ts';
import { SharedWindowCounts } from '../store/shared-windows.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetMs: number;
}

export class SharedRateLimiter {
  readonly #counts: SharedWindowCounts;
  #timer: NodeJS.Timeout | null = null;

  constructor(db: Db | null, syncIntervalMs = 100) {
    this.#counts = new SharedWindowCounts(db, 1000, 2);
    if (db) {
      this.#timer = setInterval(() => void this.sync().catch(() => undefined), syncIntervalMs);
      this.#timer.unref();
    }
  }

  hit(bucket: string, limit: number, now: number): RateDecision {
    const window = this.#counts.windowOf(now);
    const used = this.#counts.total(bucket, window);
    const resetMs = (window + 1) * 1000 - now;
    if (used >= limit) return { allowed: false, limit, remaining: 0, resetMs };
    this.#counts.add(bucket, window, 1);
    return { allowed: true, limit, remaining: Math.max(0, limit - used - 1), resetMs };
  }

  /** Whether `bucket` has used up `limit` in the current window, without counting a hit. */
  exhausted(bucket: string, limit: number, now: number): boolean {
    return this.#counts.total(bucket, this.#counts.windowOf(now)) >= limit;
  }

  sync(): Promise<void> {
    return this.#counts.sync(Date.now());
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
  }
}
