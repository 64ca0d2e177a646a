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

export const OUTBOX_CHANNEL = 'rfq_outbox';

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

/** Runs `work` in one transaction and writes the events it appended before committing. */
export async function inTransaction<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (tx) => {
    const buffer: Buffered[] = [];
    buffers.set(tx, buffer);
    const result = await work(tx);
    await writeEvents(tx, buffer);
    buffer.length = 0;
    return result;
  });
}

export async function appendEvent(tx: Tx, event: OutboxEvent, at: number): Promise<void> {
  const buffer = buffers.get(tx);
  // An event appended outside inTransaction would never be written: refuse loudly.
  if (!buffer) throw new Error('appendEvent outside inTransaction');
  buffer.push({ ...event, at });
}

async function writeEvents(tx: Tx, events: Buffered[]): Promise<void> {
  if (events.length === 0) return;
  const accountIds = events.map((e) => e.accountId);
  const topics = events.map((e) => e.topic);
  const frames = events.map((e) => JSON.stringify(e.frame));
  const times = events.map((e) => e.at);
  const order = events.map((_, i) => i);
  // Sequences: each (account, topic) advances by its number of events here; rows are numbered in
  // append order inside the batch. Broadcast rows (no account) carry no sequence.
  await sql`
    with input as (
      select * from unnest(${accountIds}::uuid[], ${topics}::text[], ${frames}::jsonb[], ${times}::int8[], ${order}::int4[])
        as t(account_id, topic, frame, created_at, ord)
    ),
    counts as (
      select account_id, topic, count(*)::int8 as n from input where account_id is not null group by account_id, topic
    ),
    bumped as (
      insert into event_seqs (account_id, topic, last_seq)
      -- One global order for the row locks, so concurrent transactions cannot deadlock here.
      select account_id, topic, n from counts order by account_id, topic
      on conflict (account_id, topic) do update set last_seq = event_seqs.last_seq + excluded.last_seq
      returning account_id, topic, last_seq
    ),
    numbered as (
      select i.*, b.last_seq - c.n + row_number() over (partition by i.account_id, i.topic order by i.ord) as seq
      from input i
      left join bumped b on b.account_id = i.account_id and b.topic = i.topic
      left join counts c on c.account_id = i.account_id and c.topic = i.topic
    )
    insert into outbox (account_id, topic, seq, frame, created_at)
    select account_id, topic, case when account_id is null then null else seq end, frame, created_at
    from numbered order by ord
  `.execute(tx);
}
