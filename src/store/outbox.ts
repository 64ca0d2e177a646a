/**
 * Event outbox: every frame a client may see is written here in the same transaction as the
 * change that caused it, so nothing is pushed for a change that did not commit. Account topics
 * get a per-(account, topic) `seq` for gap detection and replay; broadcast frames (no account)
 * carry none. Nothing notifies inside the writing transaction (see migration 0003).
 *
 * Frames are buffered per transaction and written in one statement when the use case's callback
 * returns (`inTransaction`), so a use case pays one round trip for all its events. That statement
 * returns the id and seq it gave each event, in append order; joined with the frames the writer
 * already holds they are the rows written, and once the transaction has committed they go to the
 * commit listeners: the node's dispatcher hands them to its sessions without reading them back
 * (outbox-dispatcher.ts `committed`), the outbox stays the record other nodes read.
 */
import { sql } from 'kysely';
import type { Db, Tx } from './transaction.ts';
import { readBalanceFrameRows } from './balance-frames.ts';
import type { BalanceRow } from './ledger.ts';

export type AccountTopic = 'balances' | 'rfqStatus' | 'quotes' | 'quoteStatus';
export type BroadcastTopic = 'openRfqs' | 'prices';

export interface OutboxEvent {
  /** null for broadcast topics (openRfqs). */
  accountId: string | null;
  topic: AccountTopic | BroadcastTopic;
  frame: Record<string, unknown>;
}

interface Buffered extends OutboxEvent {
  at: number;
  /** A `balances` frame still to be built from the account's rows (`appendBalancesEvent`). */
  balances?: BalancesFrameSource;
}

/** How a `balances` frame is built, and from which rows when its writer already read them. */
export interface BalancesFrameSource {
  /** The frame, from the account's rows in (token, rail) order. */
  build: (rows: BalanceRow[]) => Promise<Record<string, unknown>>;
  /** Rows read under the account's frame lock by a write function (balance-frames.ts); otherwise read when the events are written. */
  rows?: BalanceRow[];
}

/** An outbox row as its writer got it back (`rfq_append_events`), handed on after the commit. */
export interface CommittedEvent {
  id: number;
  account_id: string | null;
  topic: string;
  seq: number | null;
  frame: Record<string, unknown>;
}

/**
 * What `rfq_append_events` returns for each event, in append order: its outbox id and its seq
 * (null on broadcast topics). Not the frames: the writer holds them, and sending every frame back
 * cost about an eighth of a quote batch's time in PostgreSQL.
 */
export type AppendedRow = [id: number, seq: number | null];

/** The outbox rows written: each event beside what `rfq_append_events` gave it, in append order. */
export function committedRows(events: readonly OutboxEvent[], appended: readonly AppendedRow[]): CommittedEvent[] {
  if (appended.length !== events.length) throw new Error(`rfq_append_events numbered ${appended.length} of ${events.length} events`);
  return events.map((event, i) => ({ id: appended[i]![0], account_id: event.accountId, topic: event.topic, seq: appended[i]![1], frame: event.frame }));
}

/** Rows committed, in id order; null when the writer did not get them back (the listener reads them). */
export type CommitListener = (events: readonly CommittedEvent[] | null) => void;

const buffers = new WeakMap<Tx, Buffered[]>();
/** Rows a write function wrote from the buffer in its own statement (`takeAppendedEvents`), handed on with the commit's. */
const writtenEarly = new WeakMap<Tx, CommittedEvent[]>();
const commitListeners = new WeakMap<Db, Set<CommitListener>>();

/**
 * Calls `listener` after every commit through `db` that wrote outbox rows, with those rows when
 * the writer has them (the node's dispatcher delivers them, or wakes to read, instead of waiting
 * for its next poll). Returns the unsubscribe function.
 */
export function onOutboxCommit(db: Db, listener: CommitListener): () => void {
  let set = commitListeners.get(db);
  if (!set) commitListeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/**
 * Signals a commit that wrote outbox rows; for writers that bypass `inTransaction` (quote
 * batches). `events` only as the committed statement returned them, never before the commit.
 */
export function outboxCommitted(db: Db, events: readonly CommittedEvent[] | null = null): void {
  const set = commitListeners.get(db);
  if (!set) return;
  // A listener must only schedule work; one that throws must not fail the committed use case.
  for (const listener of set) {
    try {
      listener(events);
    } catch {
      // ignored: listeners are wake-ups, and the dispatcher's poll is the fallback
    }
  }
}

/** Runs `work` in one transaction and writes the events it appended before committing. */
export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  let events: CommittedEvent[] = [];
  const result = await db.transaction().execute(async (tx) => {
    const buffer: Buffered[] = [];
    const early: CommittedEvent[] = [];
    buffers.set(tx, buffer);
    writtenEarly.set(tx, early);
    const value = await work(tx);
    events = [...early, ...(await writeEvents(tx, buffer))];
    buffer.length = 0;
    return value;
  });
  // Only now, after the commit returned: nothing is pushed for a change that did not commit.
  if (events.length > 0) outboxCommitted(db, events);
  return result;
}

export async function appendEvent(tx: Tx, event: OutboxEvent, at: number): Promise<void> {
  bufferOf(tx, 'appendEvent').push({ ...event, at });
}

/**
 * Appends an account's `balances` frame, built when the transaction's events are written: from
 * the rows read then under the account's frame lock, or from `source.rows` that a write function
 * read under it. Either way the frame shows every commit numbered before it (balance-frames.ts).
 */
export function appendBalancesEvent(tx: Tx, accountId: string, source: BalancesFrameSource, at: number): void {
  bufferOf(tx, 'appendBalancesEvent').push({ accountId, topic: 'balances', frame: {}, at, balances: source });
}

function bufferOf(tx: Tx, caller: string): Buffered[] {
  const buffer = buffers.get(tx);
  // An event appended outside inTransaction would never be written: refuse loudly.
  if (!buffer) throw new Error(`${caller} outside inTransaction`);
  return buffer;
}

/** Builds the buffer's pending `balances` frames; the rows not read yet are read in one call, under their locks. */
async function buildBalancesFrames(tx: Tx, events: readonly Buffered[]): Promise<void> {
  const pending = events.filter((e) => e.balances !== undefined);
  if (pending.length === 0) return;
  const unread = [...new Set(pending.flatMap((e) => (e.balances!.rows === undefined ? [e.accountId!] : [])))];
  const read = await readBalanceFrameRows(tx, unread);
  for (const event of pending) {
    const rows = event.balances!.rows ?? read.filter((row) => row.account_id === event.accountId);
    event.frame = await event.balances!.build(rows);
    delete event.balances;
  }
}

/** `rfq_append_events`'s argument: the events in append order. */
const eventsPayload = (events: readonly Buffered[]) => JSON.stringify(events.map((e, ord) => ({ ord, account_id: e.accountId, topic: e.topic, frame: e.frame, at: e.at })));

async function writeEvents(tx: Tx, events: Buffered[]): Promise<CommittedEvent[]> {
  if (events.length === 0) return [];
  await buildBalancesFrames(tx, events);
  // rfq_append_events (sql/rfq_append_events.sql): sequence rows in (account, topic) order, numbered in append order.
  const { rows } = await sql<{ rows: AppendedRow[] }>`select rfq_append_events(${eventsPayload(events)}::jsonb) as rows`.execute(tx);
  return committedRows(events, rows[0]?.rows ?? []);
}

/** Events taken out of a transaction's buffer for a write function to append (`takeAppendedEvents`). */
export interface TakenEvents {
  /** `rfq_append_events`'s argument: a JSON array. */
  payload: string;
  events: readonly OutboxEvent[];
}

/**
 * The events appended so far in `tx`, for a write function that appends them in its own
 * statement: one round trip fewer (perp-commit-functions.ts). The buffer is emptied; what that
 * statement's `rfq_append_events` returned must be given back with them through `eventsWritten`,
 * and the rows go to the commit listeners with the rest.
 */
export async function takeAppendedEvents(tx: Tx): Promise<TakenEvents> {
  const buffer = bufferOf(tx, 'takeAppendedEvents');
  await buildBalancesFrames(tx, buffer);
  const payload = eventsPayload(buffer);
  return { payload, events: buffer.splice(0) };
}

/** The rows a write function appended: `taken`, numbered by what its `rfq_append_events` returned. */
export function eventsWritten(tx: Tx, taken: TakenEvents, appended: readonly AppendedRow[]): void {
  const early = writtenEarly.get(tx);
  if (!early) throw new Error('eventsWritten outside inTransaction');
  early.push(...committedRows(taken.events, appended));
}

/** Deletes outbox rows created before `before` (UnixMillis), at most `limit` per call. */
export async function pruneOutbox(db: Db, before: number, limit: number): Promise<number> {
  const result = await sql`delete from outbox where id in (select id from outbox where created_at < ${before} order by id limit ${limit})`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * Runs `work` inside a savepoint of `tx`: on a throw, its writes (and the events it appended)
 * are undone and the error returned, while the rest of the transaction goes on.
 */
export async function inSavepoint<T>(tx: Tx, work: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  const buffer = buffers.get(tx);
  const appended = buffer?.length ?? 0;
  await sql`savepoint rfq_isolated`.execute(tx);
  try {
    const value = await work();
    await sql`release savepoint rfq_isolated`.execute(tx);
    return { ok: true, value };
  } catch (error) {
    await sql`rollback to savepoint rfq_isolated`.execute(tx);
    await sql`release savepoint rfq_isolated`.execute(tx);
    if (buffer) buffer.length = appended;
    return { ok: false, error };
  }
}
