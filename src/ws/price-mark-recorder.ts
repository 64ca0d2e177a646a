/**
 * Writes the consolidated mid of each instrument to the store (store/price-marks.ts) once a
 * second while it changes, so the scorecards can tell the market's move over a fade or a late
 * relay. Every node holds the whole book (remote entries through NodeBus), so every node may
 * write; the second's key keeps one row. An unchanged mid is not written again: a lookup takes
 * the latest mark at or before its moment. Marks past 30 days are pruned.
 */
import type { Logger } from 'pino';
import { prunePriceMarks, recordPriceMarks } from '../store/price-marks.ts';
import type { Db } from '../store/transaction.ts';
import type { PriceBook } from './price-book.ts';

const MARK_INTERVAL_MS = 1000;
/** The longest scorecard window. */
export const MARK_RETENTION_MS = 30 * 86_400_000;
const PRUNE_EVERY = 60;
const PRUNE_BATCH = 5000;

export class PriceMarkRecorder {
  readonly #db: Db;
  readonly #book: PriceBook;
  readonly #now: () => number;
  readonly #logger: Logger;
  readonly #written = new Map<string, bigint>();
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #rounds = 0;

  constructor(options: { db: Db; book: PriceBook; now: () => number; logger: Logger }) {
    this.#db = options.db;
    this.#book = options.book;
    this.#now = options.now;
    this.#logger = options.logger;
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.#running ??= this.round()
        .catch((error: unknown) => this.#logger.warn({ err: error }, 'writing price marks failed (retried next second)'))
        .finally(() => {
          this.#running = null;
        });
    }, MARK_INTERVAL_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#running;
  }

  /** One round: the changed mids written, and every minute a batch of old marks pruned. */
  async round(): Promise<void> {
    const changed = this.#book.midpoints().filter((m) => this.#written.get(m.instrumentId) !== m.mid);
    const now = this.#now();
    await recordPriceMarks(this.#db, now, changed);
    for (const m of changed) this.#written.set(m.instrumentId, m.mid);
    if (++this.#rounds % PRUNE_EVERY === 0) await prunePriceMarks(this.#db, now - MARK_RETENTION_MS, PRUNE_BATCH);
  }
}
