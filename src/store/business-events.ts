/**
 * What the business metrics (runtime/business-metrics.ts) count, read from rows the use cases
 * already commit: the outbox's RFQ transitions and quote frames, in id order, and the maker
 * failures in the order they were recorded (migration 0202). Each read is one bounded batch
 * after a cursor, so a scrape never scans history.
 */
import { sql } from 'kysely';
import type { Reader } from './transaction.ts';

export interface OutboxFact {
  id: number;
  createdAt: number;
  kind: string;
  status: string | null;
  instrumentId: string | null;
  rfqId: string | null;
  version: number | null;
  quotedAt: number | null;
  settledAt: number | null;
  receivedAt: number | null;
}

/** The highest outbox id (0 for none): where a fresh count starts, and the head the lag is measured to. */
export async function outboxHead(db: Reader): Promise<{ id: number; createdAt: number | null }> {
  const row = await db.selectFrom('outbox').select(['id', 'created_at']).orderBy('id', 'desc').limit(1).executeTakeFirst();
  return { id: row ? Number(row.id) : 0, createdAt: row ? Number(row.created_at) : null };
}

/** The creation time of the oldest outbox row after `id`, or null when there is none. */
export async function outboxRowAfter(db: Reader, id: number): Promise<number | null> {
  const row = await db.selectFrom('outbox').select('created_at').where('id', '>', id).orderBy('id').limit(1).executeTakeFirst();
  return row ? Number(row.created_at) : null;
}

/** Up to `limit` RFQ-status and quote frames after outbox id `after`, in id order, as the fields counted. */
export async function outboxFactsAfter(db: Reader, after: number, limit: number): Promise<OutboxFact[]> {
  const { rows } = await sql<{ id: string | number; created_at: string | number; kind: string; status: string | null; instrument_id: string | null; rfq_id: string | null; version: string | null; quoted_at: string | null; settled_at: string | null; received_at: string | null }>`
    select id, created_at, frame->>'kind' as kind, frame->>'status' as status, frame->>'instrumentId' as instrument_id,
           coalesce(frame->>'rfqId', frame->>'id') as rfq_id, frame->>'version' as version,
           frame->>'quotedAt' as quoted_at, frame->>'settledAt' as settled_at, frame->>'receivedAt' as received_at
      from outbox
     where id > ${after} and topic in ('rfqStatus', 'quotes')
     order by id
     limit ${limit}
  `.execute(db);
  const num = (v: string | number | null) => (v === null ? null : Number(v));
  return rows.map((r) => ({
    id: Number(r.id), createdAt: Number(r.created_at), kind: r.kind, status: r.status, instrumentId: r.instrument_id, rfqId: r.rfq_id,
    version: num(r.version), quotedAt: num(r.quoted_at), settledAt: num(r.settled_at), receivedAt: num(r.received_at),
  }));
}

export interface RfqFact {
  createdAt: number;
  /** The selected quote's settlement mode; null before a selection. */
  settlementMode: string | null;
}

/** Creation time and the selected quote's mode of each RFQ in `ids`. */
export async function rfqFacts(db: Reader, ids: readonly string[]): Promise<Map<string, RfqFact>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('rfqs as r')
    .leftJoin('quotes as q', 'q.id', 'r.selected_quote_id')
    .select(['r.id', 'r.created_at', 'q.settlement_mode'])
    .where('r.id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [r.id, { createdAt: Number(r.created_at), settlementMode: r.settlement_mode ?? null }]));
}

export interface FailureCursor {
  createdAt: number;
  quoteId: string;
}

/** Up to `limit` maker failures recorded after `cursor` and at or before `until`, in that order. */
export async function makerFailuresAfter(db: Reader, cursor: FailureCursor, until: number, limit: number): Promise<Array<{ createdAt: number; quoteId: string; reason: string }>> {
  const rows = await db
    .selectFrom('maker_failures')
    .select(['created_at', 'quote_id', 'reason'])
    .where((eb) => eb.or([eb('created_at', '>', cursor.createdAt), eb.and([eb('created_at', '=', cursor.createdAt), eb('quote_id', '>', cursor.quoteId)])]))
    .where('created_at', '<=', until)
    .orderBy('created_at')
    .orderBy('quote_id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ createdAt: Number(r.created_at), quoteId: r.quote_id, reason: r.reason }));
}
