/**
 * The perp part of an accept's write in one PL/pgSQL call, `rfq_perp_record_accept`
 * (src/store/sql/rfq_perp_record_accept.sql; as a plain statement, its parse and plan were most of its cost on PGlite): the
 * execution of the RFQ still in `checking` if there is one, else the new one, recorded. The caller
 * holds the RFQ's row lock, which serialises the accepts of one RFQ (accept-perp.ts).
 */
import { sql } from 'kysely';
import type { Tx } from './transaction.ts';

/** The execution already in `checking` for this RFQ (nothing recorded), or null when `id` was recorded. */
export async function recordPerpExecution(
  tx: Tx,
  execution: { id: string; rfqId: string; quoteId: string; accountId: string; quoteVersion: number; takerOrder: string; state: unknown; now: number },
): Promise<{ id: string; quoteId: string; quoteVersion: number } | null> {
  const e = execution;
  const { rows } = await sql<{ open_id: string | null; open_quote_id: string | null; open_quote_version: number | null }>`
    select * from rfq_perp_record_accept(${e.id}::text, ${e.rfqId}::text, ${e.quoteId}::text, ${e.accountId}::uuid, ${e.quoteVersion}::int8, ${e.takerOrder}::text, ${JSON.stringify(e.state)}::jsonb, ${e.now}::int8)
  `.execute(tx);
  const open = rows[0];
  return open && open.open_id !== null ? { id: open.open_id, quoteId: open.open_quote_id!, quoteVersion: Number(open.open_quote_version) } : null;
}
