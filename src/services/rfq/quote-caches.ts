/**
 * Per-node caches on the quote hot path. An RFQ's terms (owner, instrument, side, quantity,
 * limit, fee, deadline) never change after submission, so they are cached without expiry (LRU
 * bound). Maker records are cached for `makerTtlMs`; they can only be wrong in one direction that
 * matters, and the quote statement re-checks active/suspended/pair/mode in SQL, so a stale cache
 * never admits a quote the store would refuse; a refusal on cached data re-reads before refusing.
 */
import type { Reader } from '../../store/transaction.ts';
import type { MakerRow } from './maker-access.ts';
import { makerOfAccount } from '../../store/maker-registry.ts';
import { findRfq } from '../../store/rfq-rows.ts';
import type { RfqRow } from './rows.ts';

class BoundedMap<V> {
  readonly #max: number;
  readonly #map = new Map<string, V>();
  constructor(max: number) {
    this.#max = max;
  }
  get(key: string): V | undefined {
    return this.#map.get(key);
  }
  set(key: string, value: V): void {
    if (this.#map.size >= this.#max) {
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
    this.#map.set(key, value);
  }
  delete(key: string): void {
    this.#map.delete(key);
  }
}

export class QuoteCaches {
  readonly #rfqs = new BoundedMap<RfqRow>(100_000);
  readonly #makers = new BoundedMap<{ row: MakerRow | null; at: number }>(10_000);
  readonly #makerTtlMs: number;

  constructor(makerTtlMs = 1000) {
    this.#makerTtlMs = makerTtlMs;
  }

  /** The RFQ as first read; only its immutable fields may be used. */
  async rfq(db: Reader, rfqId: string): Promise<RfqRow | undefined> {
    const cached = this.#rfqs.get(rfqId);
    if (cached) return cached;
    const row = await findRfq(db, rfqId);
    if (row) this.#rfqs.set(rfqId, row);
    return row;
  }

  /** Drops the cached maker record, after a change this node made to it. */
  forgetMaker(accountId: string): void {
    this.#makers.delete(accountId);
  }

  async maker(db: Reader, accountId: string, now: number, fresh = false): Promise<MakerRow | null> {
    const cached = this.#makers.get(accountId);
    if (!fresh && cached && now - cached.at < this.#makerTtlMs) return cached.row;
    const row = (await makerOfAccount(db, accountId)) ?? null;
    this.#makers.set(accountId, { row, at: now });
    return row;
  }
}
