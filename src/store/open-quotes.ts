/**
 * The reads that find a maker's open (`SUBMITTED`) quotes for the protections that cancel them:
 * cancel-all and the dead man's switch, a tripped protection, a disconnected maker
 * (src/services/protection). Each answers ids in id order; the cancel itself locks and decides.
 */
import { sql } from 'kysely';
import type { Reader } from './transaction.ts';

/** The maker's open quotes, on one instrument when `instrumentId` is not null; at most `limit`. */
export async function openQuoteIdsOfMaker(db: Reader, makerAccountId: string, instrumentId: string | null, limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }>`
    select q.id
    from quotes q
    join rfqs r on r.id = q.rfq_id
    where q.maker_account_id = ${makerAccountId}::uuid and q.status = 'SUBMITTED'
      and (${instrumentId}::text is null or r.instrument_id = ${instrumentId}::text)
    order by q.id
    limit ${limit}
  `.execute(db);
  return rows.rows.map((row) => row.id);
}

/**
 * The open quotes on open RFQs of these (maker, instrument) pairs (the tripped protections), at
 * most `limit`. Read from the pairs outward: a join from the settings let PostgreSQL plan it from
 * every open RFQ through all its quotes.
 */
export async function openQuotesOfPairs(db: Reader, pairs: ReadonlyArray<{ maker_account_id: string; instrument_id: string }>, limit: number): Promise<Array<{ id: string; maker_account_id: string }>> {
  const rows = await sql<{ id: string; maker_account_id: string }>`
    select q.id, q.maker_account_id
    from unnest(${pairs.map((p) => p.maker_account_id)}::uuid[], ${pairs.map((p) => p.instrument_id)}::text[]) as p(maker_account_id, instrument_id)
    join quotes q on q.maker_account_id = p.maker_account_id and q.status = 'SUBMITTED'
    join rfqs r on r.id = q.rfq_id and r.status = 'PENDING' and r.instrument_id = p.instrument_id
    order by q.id
    limit ${limit}
  `.execute(db);
  return rows.rows;
}

/** The maker's open quotes on open RFQs received at or before `receivedBy` (its last session's end). */
export async function openQuoteIdsReceivedBy(db: Reader, makerAccountId: string, receivedBy: number): Promise<string[]> {
  const rows = await sql<{ id: string }>`
    select q.id from quotes q join rfqs r on r.id = q.rfq_id and r.status = 'PENDING'
    where q.maker_account_id = ${makerAccountId} and q.status = 'SUBMITTED' and q.received_at <= ${receivedBy}
    order by q.id
  `.execute(db);
  return rows.rows.map((row) => row.id);
}
