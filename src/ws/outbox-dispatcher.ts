/**
 * Reads the outbox and hands each committed account-topic frame to this node's sessions, with
 * the row's `seq` added, and each broadcast `openRfqs` frame to the sessions subscribed to its
 * instrument (no seq). Every node runs its own dispatcher over the shared table, so every
 * node's sessions see every commit. It reads when woken (`wake`: another node's NOTIFY, or a
 * local commit whose rows it was not given) and otherwise polls at `pollIntervalMs` as the fallback.
 *
 * A local commit usually hands over the rows it wrote (`committed`, from the writing statement's
 * result, after the commit returned): those that continue the cursor without a hole are delivered
 * at once, without reading them back (the read was most of the time from a quote's
 * commit to the taker's frame). Anything else (a hole before them: an earlier id not yet seen)
 * falls back to the read below, so order, `seq` and the hole rules are the read's.
 *
 * Ids come from a sequence, which is allocated at insert, not at commit: a row with a lower id
 * can become visible after a higher one. The cursor therefore does not jump over a hole at once.
 * A hole is either an id a transaction still in flight holds (it may yet commit: wait) or one no
 * transaction can commit any more (rolled back, or lost in a crash: PGlite's recovery skips up to
 * a sequence's cached ids; pass it at once). They are told apart by who writes the outbox: an
 * INSERT takes its RowExclusiveLock on `outbox` before it draws an id, so the holder of a missing
 * id (drawn before the later row's id, hence before that row committed and we read it) is among
 * the transactions holding that lock when the hole is first seen. Once none of THOSE (by virtual
 * transaction id) is left, the hole is dead, however busy the outbox is with newer writers. With
 * none at first sight (always so on PGlite, one connection) it is dead at once. `gapGraceMs`
 * stays as the bound on the wait.
 */
import type { Logger } from 'pino';
import { sql } from 'kysely';
import type { Db } from '../store/transaction.ts';
import type { CommittedEvent } from '../store/outbox.ts';
import { inBackgroundLane } from '../store/work-lane.ts';
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
  /** The outbox writers in flight when the current hole was first seen: only they can fill it. */
  private gapHolders: Set<string> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** A wake-up arrived while a read was running: read again as soon as it ends. */
  private again = false;
  private stopped = false;
  /** The cursor is set (start): committed rows before it are not handed out. */
  private started = false;

  constructor(options: OutboxDispatcherOptions) {
    this.db = options.db;
    this.hub = options.hub;
    this.logger = options.logger;
    this.pollIntervalMs = options.pollIntervalMs ?? 50;
    this.batchSize = options.batchSize ?? 1000;
    this.gapGraceMs = options.gapGraceMs ?? 2000;
  }

  /** Starts after the newest row: a fresh node has no sessions that could want older frames. */
  /** The last outbox id this dispatcher has read past (the business metrics' lag is measured to it). */
  get position(): number {
    return this.cursor;
  }

  async start(): Promise<void> {
    const row = await this.db.selectFrom('outbox').select((eb) => eb.fn.max('id').as('max')).executeTakeFirst();
    this.cursor = Number(row?.max ?? 0);
    this.started = true;
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

  /**
   * Rows a local writer committed and got back, in id order: those that continue the cursor are
   * delivered now; at the first hole the rest is left to a read (woken here).
   */
  committed(events: readonly CommittedEvent[]): void {
    if (this.stopped || !this.started) return;
    for (const event of events) {
      if (event.id <= this.cursor) continue; // a read got there first
      if (event.id !== this.cursor + 1) {
        this.wake();
        return;
      }
      this.advance(event.id, event.account_id, event.topic, event.seq, event.frame);
    }
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
    // Woken from request handling too: the read still runs in the background lane (work-lane.ts).
    this.running = inBackgroundLane(() => this.poll())
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
      // Delivered meanwhile from its writer's commit (`committed`): counted, not sent twice.
      if (id <= this.cursor) {
        delivered++;
        continue;
      }
      if (id !== this.cursor + 1) {
        const cursor = this.cursor;
        const dead = await this.holeIsDead();
        if (this.cursor !== cursor) {
          // Committed rows moved the cursor during the check: the answer was about another hole.
          this.again = true;
          break;
        }
        if (!dead) break; // wait for the hole to fill
      }
      delivered++;
      this.advance(id, row.account_id, row.topic, row.seq === null ? null : Number(row.seq), row.frame);
    }
    return delivered;
  }

  /** Moves the cursor to `id` and hands its frame (null: filtered out by the read) to the sessions. */
  private advance(id: number, accountId: string | null, topic: string, seq: number | null, frame: Record<string, unknown> | null): void {
    this.gapSince = null;
    this.gapHolders = null;
    this.cursor = id;
    if (frame === null) return;
    if (accountId === null) {
      // Broadcast rows carry no seq. Prices never pass through the outbox (see price-book.ts).
      if (topic === 'openRfqs' && typeof frame.instrumentId === 'string') this.hub.deliverOpenRfq(frame.instrumentId, frame);
      return;
    }
    this.hub.deliver(accountId, topic, seq === null ? frame : { ...frame, seq });
  }

  /** A hole before the next row: dead once no outbox writer in flight at its first sight is left, or past the grace. */
  private async holeIsDead(): Promise<boolean> {
    const writers = await this.outboxWriters();
    if (this.gapHolders === null) {
      this.gapSince = Date.now();
      this.gapHolders = writers;
    }
    for (const holder of this.gapHolders) if (writers.has(holder)) return Date.now() - this.gapSince! >= this.gapGraceMs;
    return true;
  }

  /** Virtual transaction ids of the other sessions now holding the write lock on `outbox` in this database. */
  private async outboxWriters(): Promise<Set<string>> {
    const { rows } = await sql<{ vxid: string }>`
      select virtualtransaction as vxid from pg_locks
      where locktype = 'relation' and relation = 'outbox'::regclass and mode = 'RowExclusiveLock' and granted
        and database = (select oid from pg_database where datname = current_database()) and pid <> pg_backend_pid()`.execute(this.db);
    return new Set(rows.map((r) => r.vxid));
  }
}
