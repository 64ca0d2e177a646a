/**
 * Fixed one-second windows per bucket (access key or source address) that hold across nodes:
 * each node counts locally and, every `syncIntervalMs`, adds its new hits to a shared row per
 * (bucket, window) and reads back the global count. A decision uses the global count from the
 * last sync plus this node's own hits since, so the cluster-wide limit overshoots by at most what
 * other nodes admit within one sync interval.
 */
import { sql } from 'kysely';
import type { Db } from '../store/transaction.ts';

interface WindowCount {
  window: number;
  localHits: number;
  unsyncedHits: number;
  othersHits: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetMs: number;
}

export class SharedRateLimiter {
  readonly #db: Db | null;
  readonly #counts = new Map<string, WindowCount>();
  #timer: NodeJS.Timeout | null = null;

  constructor(db: Db | null, syncIntervalMs = 100) {
    this.#db = db;
    if (db) {
      this.#timer = setInterval(() => void this.sync().catch(() => undefined), syncIntervalMs);
      this.#timer.unref();
    }
  }

  hit(bucket: string, limit: number, now: number): RateDecision {
    const window = Math.floor(now / 1000);
    let count = this.#counts.get(bucket);
    if (!count || count.window !== window) {
      count = { window, localHits: 0, unsyncedHits: 0, othersHits: 0 };
      this.#counts.set(bucket, count);
    }
    const used = count.localHits + count.othersHits;
    const resetMs = (window + 1) * 1000 - now;
    if (used >= limit) return { allowed: false, limit, remaining: 0, resetMs };
    count.localHits += 1;
    count.unsyncedHits += 1;
    return { allowed: true, limit, remaining: Math.max(0, limit - used - 1), resetMs };
  }

  /** Whether `bucket` has used up `limit` in the current window, without counting a hit. */
  exhausted(bucket: string, limit: number, now: number): boolean {
    const count = this.#counts.get(bucket);
    return count !== undefined && count.window === Math.floor(now / 1000) && count.localHits + count.othersHits >= limit;
  }

  async sync(): Promise<void> {
    if (!this.#db) return;
    const current = Math.floor(Date.now() / 1000);
    const dirty: Array<[string, WindowCount]> = [];
    for (const [bucket, count] of this.#counts) {
      if (count.window < current - 1) this.#counts.delete(bucket);
      else if (count.unsyncedHits > 0) dirty.push([bucket, count]);
    }
    if (dirty.length === 0) return;
    const sent = dirty.map(([, c]) => c.unsyncedHits);
    for (const [, c] of dirty) c.unsyncedHits = 0;
    const rows = await sql<{ bucket: string; window_start: number; hits: number }>`
      insert into rate_limit_windows (bucket, window_start, hits)
      select * from unnest(${dirty.map(([b]) => b)}::text[], ${dirty.map(([, c]) => c.window)}::int8[], ${sent}::int4[])
      on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + excluded.hits
      returning bucket, window_start, hits
    `.execute(this.#db);
    for (const row of rows.rows) {
      const count = this.#counts.get(row.bucket);
      if (count && count.window === Number(row.window_start)) count.othersHits = Math.max(0, row.hits - (count.localHits - count.unsyncedHits));
    }
    if (Math.random() < 0.01) await sql`delete from rate_limit_windows where window_start < ${current - 60}`.execute(this.#db);
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
  }
}
