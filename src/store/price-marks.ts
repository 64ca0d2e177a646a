/**
 * The consolidated mid price's marks (migration 0201): written by every node's recorder, read by
 * the scorecards. A mark older than `MARK_LOOKBACK_MS` before the moment asked about is not an
 * answer: a book that has gone quiet for that long says nothing about the price then.
 */
import { sql } from 'kysely';
import type { Db, Reader } from './transaction.ts';

export const MARK_LOOKBACK_MS = 600_000;

export interface PriceMark {
  instrumentId: string;
  /** Mid price, quote token per base token scaled by 10^18 (the ladders' PRICE_DECIMALS). */
  mid: bigint;
}

/**
 * Writes one mark per instrument, keyed by the end of the second `at` falls in (so a mark never
 * claims a moment before it was seen, and a lookup at the selection cannot read a later price); a
 * second already marked keeps its row.
 */
export async function recordPriceMarks(db: Db, at: number, marks: readonly PriceMark[]): Promise<void> {
  if (marks.length === 0) return;
  const second = Math.floor(at / 1000) * 1000 + 1000;
  await db
    .insertInto('price_marks')
    .values(marks.map((m) => ({ instrument_id: m.instrumentId, at: second, mid: m.mid })))
    .onConflict((oc) => oc.columns(['instrument_id', 'at']).doNothing())
    .execute();
}

/** The latest mark of `instrumentId` at or before `at` (within the lookback), or null. */
export async function priceMarkAt(db: Reader, instrumentId: string, at: number): Promise<bigint | null> {
  const row = await db
    .selectFrom('price_marks')
    .select('mid')
    .where('instrument_id', '=', instrumentId)
    .where('at', '<=', at)
    .where('at', '>', at - MARK_LOOKBACK_MS)
    .orderBy('at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? BigInt(row.mid) : null;
}

/** Deletes up to `limit` marks older than `before`; answers how many. */
export async function prunePriceMarks(db: Db, before: number, limit: number): Promise<number> {
  const result = await sql`
    delete from price_marks where ctid in (select ctid from price_marks where at < ${before} order by at limit ${limit})
  `.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}
