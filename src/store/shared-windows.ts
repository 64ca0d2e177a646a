/**
 * Counts per (bucket, fixed time window) that hold across nodes, kept in `rate_limit_windows`:
 * each node counts locally and, at each `sync`, adds its new amounts to the shared row and reads
 * back the global total. A node's view of a window is its own count plus the others' as of its
 * last sync, so a cluster-wide limit built on it overshoots by at most what the other nodes add
 * within one sync interval. The request rate limits (one-second windows) and the venue's weight
 * budget (one-minute windows) both count here.
 */
import { sql } from 'kysely';
import type { Db } from './transaction.ts';

/** Rows older than this are dead for every user of the table (the longest window is a minute, and its predecessor is still read). */
const ROW_HORIZON_SECS = 180;

interface WindowCount {
  local: number;
  unsynced: number;
  others: number;
}

export class SharedWindowCounts {
  readonly #db: Db | null;
  readonly #windowMs: number;
  readonly #keepWindows: number;
  /** bucket -> window start (unix seconds) -> counts. */
  readonly #counts = new Map<string, Map<number, WindowCount>>();

  /** `db` null: a single node (PGlite), whose counts need no sharing. `keepWindows`: how many windows (the current one included) are remembered. */
  constructor(db: Db | null, windowMs: number, keepWindows: number) {
    this.#db = db;
    this.#windowMs = windowMs;
    this.#keepWindows = keepWindows;
  }

  get shared(): boolean {
    return this.#db !== null;
  }

  /** The start, in unix seconds, of the window holding `nowMs`. */
  windowOf(nowMs: number): number {
    return (Math.floor(nowMs / this.#windowMs) * this.#windowMs) / 1000;
  }

  #entry(bucket: string, window: number): WindowCount {
    let windows = this.#counts.get(bucket);
    if (!windows) this.#counts.set(bucket, (windows = new Map()));
    let count = windows.get(window);
    if (!count) {
      // A bucket holds its last few windows only, synced or not.
      const oldest = window - ((this.#keepWindows - 1) * this.#windowMs) / 1000;
      for (const old of windows.keys()) if (old < oldest) windows.delete(old);
      windows.set(window, (count = { local: 0, unsynced: 0, others: 0 }));
    }
    return count;
  }

  add(bucket: string, window: number, amount: number): void {
    const count = this.#entry(bucket, window);
    count.local += amount;
    count.unsynced += amount;
  }

  /** This node's count and the others' as of the last sync. */
  total(bucket: string, window: number): number {
    const count = this.#counts.get(bucket)?.get(window);
    return count === undefined ? 0 : count.local + count.others;
  }

  /** This node's own count. */
  own(bucket: string, window: number): number {
    return this.#counts.get(bucket)?.get(window)?.local ?? 0;
  }

  /**
   * Adds this node's new amounts to the shared rows and reads their totals back; `read` names
   * windows whose totals are wanted even when this node added nothing to them. Windows older than
   * the remembered ones are forgotten.
   */
  async sync(nowMs: number, read: ReadonlyArray<readonly [string, number]> = []): Promise<void> {
    const oldest = this.windowOf(nowMs) - ((this.#keepWindows - 1) * this.#windowMs) / 1000;
    for (const [bucket, windows] of this.#counts) {
      for (const window of windows.keys()) if (window < oldest) windows.delete(window);
      if (windows.size === 0) this.#counts.delete(bucket);
    }
    if (!this.#db) return;
    const dirty: Array<[string, number, WindowCount]> = [];
    for (const [bucket, windows] of this.#counts) for (const [window, count] of windows) if (count.unsynced > 0) dirty.push([bucket, window, count]);
    const clean = read.filter(([bucket, window]) => !(this.#counts.get(bucket)?.get(window)?.unsynced ?? 0));
    if (dirty.length === 0 && clean.length === 0) return;
    const sent = dirty.map(([, , c]) => c.unsynced);
    for (const [, , c] of dirty) c.unsynced = 0;
    const rows: Array<{ bucket: string; window_start: number | string; hits: number }> = [];
    if (dirty.length > 0) {
      rows.push(
        ...(
          await sql<{ bucket: string; window_start: number; hits: number }>`
            insert into rate_limit_windows (bucket, window_start, hits)
            select * from unnest(${dirty.map(([b]) => b)}::text[], ${dirty.map(([, w]) => w)}::int8[], ${sent}::int4[])
            on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + excluded.hits
            returning bucket, window_start, hits
          `.execute(this.#db)
        ).rows,
      );
    }
    if (clean.length > 0) {
      rows.push(
        ...(
          await sql<{ bucket: string; window_start: number; hits: number }>`
            select bucket, window_start, hits from rate_limit_windows
            where (bucket, window_start) in (select * from unnest(${clean.map(([b]) => b)}::text[], ${clean.map(([, w]) => w)}::int8[]))
          `.execute(this.#db)
        ).rows,
      );
    }
    for (const row of rows) {
      const window = Number(row.window_start);
      if (window < oldest) continue;
      const count = this.#entry(row.bucket, window);
      count.others = Math.max(0, row.hits - (count.local - count.unsynced));
    }
    if (Math.random() < 0.01) await sql`delete from rate_limit_windows where window_start < ${Math.floor(nowMs / 1000) - ROW_HORIZON_SECS}`.execute(this.#db);
  }
}
