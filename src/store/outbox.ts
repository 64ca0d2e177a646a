/**
 * Event outbox: every frame a client may see is written here in the same transaction as the
 * change that caused it, so nothing is pushed for a change that did not commit. Account topics
 * get a per-(account, topic) `seq` for gap detection and replay; broadcast frames (no account)
 * carry none. A statement-level trigger NOTIFYs dispatchers on every node after commit.
 */
import { sql } from 'kysely';
import type { Tx } from './transaction.ts';

export const OUTBOX_CHANNEL = 'rfq_outbox';

export type AccountTopic = 'balances' | 'rfqStatus' | 'quotes' | 'quoteStatus';
export type BroadcastTopic = 'openRfqs' | 'prices';

export interface OutboxEvent {
  /** null for broadcast topics (openRfqs). */
  accountId: string | null;
  topic: AccountTopic | BroadcastTopic;
  frame: Record<string, unknown>;
}

export async function appendEvent(tx: Tx, event: OutboxEvent, at: number): Promise<void> {
  const frame = JSON.stringify(event.frame);
  if (event.accountId === null) {
    await tx.insertInto('outbox').values({ account_id: null, topic: event.topic, seq: null, frame, created_at: at }).execute();
    return;
  }
  // One round trip: bump the (account, topic) sequence and insert the frame with it.
  await sql`
    with next_seq as (
      insert into event_seqs (account_id, topic, last_seq) values (${event.accountId}, ${event.topic}, 1)
      on conflict (account_id, topic) do update set last_seq = event_seqs.last_seq + 1
      returning last_seq
    )
    insert into outbox (account_id, topic, seq, frame, created_at)
    select ${event.accountId}, ${event.topic}, last_seq, ${frame}::jsonb, ${at} from next_seq
  `.execute(tx);
}

export async function appendEvents(tx: Tx, events: OutboxEvent[], at: number): Promise<void> {
  for (const event of events) await appendEvent(tx, event, at);
}
