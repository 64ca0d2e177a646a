/**
 * Reads the outbox and hands each committed account-topic frame to this node's sessions, with
 * the row's `seq` added, and each broadcast `openRfqs` frame to the sessions subscribed to its
 * instrument (no seq). Every node runs its own dispatcher over the shared table, so every
 * node's sessions see every commit. It reads when woken (`wake`: a local commit, or another
 * node's NOTIFY) and otherwise polls at `pollIntervalMs` as the fallback.
 *
 * Ids come from a sequence, which is allocated at insert, not at commit: a row with a lower id
 * can become visible after a higher one. The cursor therefore does not jump over a hole at once;
 * it waits up to GAP_GRACE_MS for the hole to fill (a slow committer) before treating it as a
 * rolled-back id and moving on. Without this a concurrent commit could be skipped for good.
 */
import type { Logger } from 'pino';
import { sql } from 'kysely';
import type { Db } from '../store/transaction.ts';
import type { SessionHub } from './hub.ts';

const ACCOUNT_FILTER_MAX = 500;

export interface OutboxDispatcherOptions {
  db: Db;
  hub: SessionHub;
  logger: Logger;
  pollIntervalMs?: number;
  /** Rows per poll: bounds memory and the time one poll holds the loop. */
  batchSize?: number;
  gapGraceMs?: number;
}

export class OutboxDispatcher {
  private readonly db: Db;
  private readonly hub: SessionHub;
  private readonly logger: Logger;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly gapGraceMs: number;
  private cursor = 0;
  private gapSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** A wake-up arrived while a read was running: read again as soon as it ends. */
  private again = false;
  private stopped = false;

  constructor(options: OutboxDispatcherOptions) {
    this.db = options.db;
    this.hub = options.hub;
    this.logger = options.logger;
    this.pollIntervalMs = options.pollIntervalMs ?? 50;
    this.batchSize = options.batchSize ?? 1000;
    this.gapGraceMs = options.gapGraceMs ?? 2000;
  }

  /** Starts after the newest row: a fresh node has no sessions that could want older frames. */
  async start(): Promise<void> {
    const row = await this.db.selectFrom('outbox').select((eb) => eb.fn.max('id').as('max')).executeTakeFirst();
    this.cursor = Number(row?.max ?? 0);
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** New rows may be committed: read now (or right after the read in progress). */
  wake(): void {
    if (this.stopped) return;
    // With no session here nothing could be delivered: the poll alone moves the cursor on, so a
    // node without sockets does not pay a read per commit.
    if (this.hub.sessionCount() === 0) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.run();
  }

  /** setTimeout after each poll, not setInterval: a slow poll never overlaps the next. */
  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => this.run(), this.pollIntervalMs);
    this.timer.unref();
  }

  private run(): void {
    this.timer = null;
    let full = false;
    this.running = this.poll()
      .then((n) => {
        full = n >= this.batchSize;
      })
      .catch((error: unknown) => this.logger.warn({ err: error }, 'outbox poll failed'))
      .finally(() => {
        this.running = null;
        if (this.stopped) return;
        // A full batch means more rows are waiting; a wake-up during the read may mean the same.
        if (full || this.again) {
          this.again = false;
          setImmediate(() => this.wake());
        } else this.schedule();
      });
  }

  /** One poll; returns how many rows were delivered (exported for tests and benchmarks). */
  async poll(): Promise<number> {
    // Frames are read only for accounts with a session here: a node without sessions pays for ids.
    // Broadcast openRfqs rows likewise: only for instruments some session here subscribes to.
    // Past ACCOUNT_FILTER_MAX accounts the list costs more to send than the frames it filters out.
    const everyAccount = this.hub.accountCount() > ACCOUNT_FILTER_MAX;
    const connected = everyAccount ? [] : this.hub.accounts();
    const instruments = this.hub.openRfqsInstruments();
    const rows = await this.db
      .selectFrom('outbox')
      .select(['id', 'account_id', 'topic', 'seq'])
      .select(
        sql<Record<string, unknown> | null>`case when account_id is not null and (${everyAccount} or account_id = any(${connected}::uuid[])) then frame when account_id is null and topic = 'openRfqs' and frame->>'instrumentId' = any(${instruments}::text[]) then frame end`.as('frame'),
      )
      .where('id', '>', this.cursor)
      .orderBy('id')
      .limit(this.batchSize)
      .execute();
    let delivered = 0;
    for (const row of rows) {
      const id = Number(row.id);
      if (id !== this.cursor + 1) {
        const now = Date.now();
        if (this.gapSince === null) this.gapSince = now;
        if (now - this.gapSince < this.gapGraceMs) break; // wait for the hole to fill
      }
      this.gapSince = null;
      this.cursor = id;
      delivered++;
      if (row.frame === null) continue;
      const frame = row.frame;
      if (row.account_id === null) {
        // Broadcast rows carry no seq. Prices never pass through the outbox (see price-book.ts).
        if (row.topic === 'openRfqs' && typeof frame.instrumentId === 'string') this.hub.deliverOpenRfq(frame.instrumentId, frame);
        continue;
      }
      this.hub.deliver(row.account_id, row.topic, row.seq === null ? frame : { ...frame, seq: Number(row.seq) });
    }
    return delivered;
  }
}
