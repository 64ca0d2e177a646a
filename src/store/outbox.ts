/**
 * Event outbox: every frame a client may see is written here in the same transaction as the
 * change that caused it, so nothing is pushed for a change that did not commit. Account topics
 * get a per-(account, topic) `seq` for gap detection and replay; broadcast frames (no account)
 * carry none. Nothing notifies inside the writing transaction (see migration 0003).
 *
 * Frames are buffered per transaction and written in one statement when the use case's callback
 * returns (`inTransaction`), so a use case pays one round trip for all its events.
 */
import { sql } from 'kysely';
import type { Db, Tx } from './transaction.ts';

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
}

const buffers = new WeakMap<Tx, Buffered[]>();
const commitListeners = new WeakMap<Db, Set<() => void>>();

/**
 * Calls `listener` after every commit through `db` that wrote outbox rows (the node's dispatcher
 * wakes on it instead of waiting for its next poll). Returns the unsubscribe function.
 */
export function onOutboxCommit(db: Db, listener: () => void): () => void {
  let set = commitListeners.get(db);
  if (!set) commitListeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** Signals a commit that wrote outbox rows; for writers that bypass `inTransaction` (quote batches). */
export function outboxCommitted(db: Db): void {
  const set = commitListeners.get(db);
  if (!set) return;
  // A listener must only schedule work; one that throws must not fail the committed use case.
  for (const listener of set) {
    try {
      listener();
    } catch {
      // ignored: listeners are wake-ups, and the dispatcher's poll is the fallback
    }
  }
}

/** Runs `work` in one transaction and writes the events it appended before committing. */
export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  let wrote = false;
  const result = await db.transaction().execute(async (tx) => {
    const buffer: Buffered[] = [];
    buffers.set(tx, buffer);
    const value = await work(tx);
    wrote = buffer.length > 0;
    await writeEvents(tx, buffer);
    buffer.length = 0;
    return value;
  });
  if (wrote) outboxCommitted(db);
  return result;
}

export async function appendEvent(tx: Tx, event: OutboxEvent, at: number): Promise<void> {
  const buffer = buffers.get(tx);
  // An event appended outside inTransaction would never be written: refuse loudly.
  if (!buffer) throw new Error('appendEvent outside inTransaction');
  buffer.push({ ...event, at });
}

async function writeEvents(tx: Tx, events: Buffered[]): Promise<void> {
  if (events.length === 0) return;
  const payload = events.map((e, ord) => ({ ord, account_id: e.accountId, topic: e.topic, frame: e.frame, at: e.at }));
  // rfq_append_events (migration 0008): sequence rows in (account, topic) order, numbered in append order.
  await sql`select rfq_append_events(${JSON.stringify(payload)}::jsonb)`.execute(tx);
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
