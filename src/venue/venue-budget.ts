/**
 * The venue's request weight, accounted once for every node (DESIGN: one budget per egress
 * address): each request's weight is admitted here before it is sent, by priority, against
 * `RFQ_VENUE_WEIGHT_PER_MIN` spent over the last minute across the nodes (shared through the
 * store like the request rate limits, store/shared-windows.ts). Lower priorities stop first as the
 * minute fills (domain/venue/request-weight.ts); a 429 from the venue stops this node's requests
 * for the time its reply names (another node that sends meets its own 429 and stops as well).
 */
import { TransportError } from '@nktkas/hyperliquid';
import type { Db } from '../store/transaction.ts';
import { SharedWindowCounts } from '../store/shared-windows.ts';
import { admits, slidingWeight, VENUE_PRIORITIES, type VenuePriority } from '../domain/venue/request-weight.ts';

const WINDOW_MS = 60_000;
/** What a 429 without a `Retry-After` stops sends for. */
const DEFAULT_BACKOFF_MS = 5_000;
/** The longest a reply's `Retry-After` is honoured for (a broken header cannot stop the venue for good). */
const MAX_BACKOFF_MS = 60_000;
const SPENT = (priority: VenuePriority) => `venue-weight:${priority}`;

/** A request refused before it was sent: the budget has no room for its priority. Nothing reached the venue. */
export class VenueBudgetRefusedError extends TransportError {
  readonly priority: VenuePriority;
  readonly weight: number;
  constructor(priority: VenuePriority, weight: number, reason: string) {
    super(`venue request budget: ${reason} (priority ${priority}, weight ${weight}); not sent`);
    this.name = 'VenueBudgetRefusedError';
    this.priority = priority;
    this.weight = weight;
  }
}

export interface VenueBudgetOptions {
  /** The store shared by the nodes; null on a single node (PGlite). */
  db: Db | null;
  weightPerMin: number;
  now?: () => number;
  /** How often this node's spending is written and the others' read (when `db` is set). */
  syncIntervalMs?: number;
}

export interface VenueBudgetStats {
  /** Weight spent by this node since it started, by priority. */
  spent: Record<VenuePriority, number>;
  /** Weight refused on this node since it started, by priority. */
  refused: Record<VenuePriority, number>;
  /** 429 replies this node read. */
  tooManyRequests: number;
  /** The cluster's weight over the last minute, as this node sees it. */
  usedLastMinute: number;
  weightPerMin: number;
}

const zeroes = (): Record<VenuePriority, number> => ({ 1: 0, 2: 0, 3: 0, 4: 0 });

export class VenueBudget {
  readonly weightPerMin: number;
  readonly #counts: SharedWindowCounts;
  readonly #now: () => number;
  readonly #spent = zeroes();
  readonly #refused = zeroes();
  #tooManyRequests = 0;
  #blockedUntil = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(options: VenueBudgetOptions) {
    this.weightPerMin = options.weightPerMin;
    this.#now = options.now ?? Date.now;
    this.#counts = new SharedWindowCounts(options.db, WINDOW_MS, 2);
    if (options.db) {
      this.#timer = setInterval(() => void this.sync().catch(() => undefined), options.syncIntervalMs ?? 250);
      this.#timer.unref();
    }
  }

  /** The cluster's weight over the last minute (the sliding estimate of two fixed windows). */
  used(now = this.#now()): number {
    const window = this.#counts.windowOf(now);
    const previous = window - WINDOW_MS / 1000;
    const sum = (w: number) => VENUE_PRIORITIES.reduce((total, p) => total + this.#counts.total(SPENT(p), w), 0);
    return slidingWeight(sum(window), sum(previous), now - window * 1000, WINDOW_MS);
  }

  /** Takes `weight` for a request at `priority`, or throws VenueBudgetRefusedError (nothing is sent then). */
  admit(weight: number, priority: VenuePriority): void {
    const now = this.#now();
    if (now < this.#blockedUntil) return this.#refuse(weight, priority, `the venue answered 429; resuming in ${this.#blockedUntil - now} ms`);
    if (!admits(this.used(now), weight, this.weightPerMin, priority)) return this.#refuse(weight, priority, `the minute's ${this.weightPerMin} weight is spent for this priority`);
    this.#charge(weight, priority, now);
  }

  /** Weight the venue counts once it answered (items returned): never refused, it is already spent. */
  charge(weight: number, priority: VenuePriority): void {
    if (weight > 0) this.#charge(weight, priority, this.#now());
  }

  /** The venue answered 429: nothing is sent for `retryAfterMs` (its reply's timing, else a default). */
  tooManyRequests(retryAfterMs: number | null): void {
    this.#tooManyRequests += 1;
    const pause = Math.min(MAX_BACKOFF_MS, Math.max(0, retryAfterMs ?? DEFAULT_BACKOFF_MS));
    this.#blockedUntil = Math.max(this.#blockedUntil, this.#now() + pause);
  }

  #charge(weight: number, priority: VenuePriority, now: number): void {
    this.#counts.add(SPENT(priority), this.#counts.windowOf(now), weight);
    this.#spent[priority] += weight;
  }

  #refuse(weight: number, priority: VenuePriority, reason: string): never {
    this.#refused[priority] += weight;
    throw new VenueBudgetRefusedError(priority, weight, reason);
  }

  stats(): VenueBudgetStats {
    return { spent: { ...this.#spent }, refused: { ...this.#refused }, tooManyRequests: this.#tooManyRequests, usedLastMinute: this.used(), weightPerMin: this.weightPerMin };
  }

  /** Writes this node's spending and reads the cluster's (the current and the previous minute). */
  sync(): Promise<void> {
    const now = this.#now();
    const window = this.#counts.windowOf(now);
    const windows = [window, window - WINDOW_MS / 1000];
    const buckets = VENUE_PRIORITIES.map(SPENT);
    return this.#counts.sync(now, buckets.flatMap((bucket) => windows.map((w) => [bucket, w] as const)));
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
  }
}

/** A `Retry-After` header's delay in ms (seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
