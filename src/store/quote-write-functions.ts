/**
 * The quote write's database calls: the group-committed batch (`rfq_write_quotes`, called by
 * src/services/rfq/write-quote.ts) and the perp quote's one call (`rfq_write_perp_quote`, with
 * the maker's nonce claims and signed orders). Each answers its rows as the function returns them.
 */
import { sql } from 'kysely';
import type { AppendedRow } from './outbox.ts';
import type { Db } from './transaction.ts';

export interface QuoteWriteRow {
  /** null on the one row that carries the outbox rows written (`out_events`). */
  out_ord: number | null;
  out_reused: boolean;
  out_rfq_open: boolean;
  out_maker_allowed: boolean;
  out_quote_id: string | null;
  out_version: number | string | null;
  out_refusal: string | null;
  out_events: AppendedRow[] | null;
}

/** A batch of quote writes (`items`, a JSON array), with the outbox rows written. */
export async function writeQuoteBatch(db: Db, items: string): Promise<QuoteWriteRow[]> {
  return (await sql<QuoteWriteRow>`select * from rfq_write_quotes(${items}::jsonb, true)`.execute(db)).rows;
}

/** The batch's row for one item, and the signer and nonce already claimed when that refused it. */
export type PerpQuoteWriteRow = Omit<QuoteWriteRow, 'out_ord' | 'out_events'> & { out_conflict: string | null };

/** One perp quote's write (`item`) with its venue orders (`perp`), both JSON; undefined if no row came back. */
export async function writePerpQuoteRow(db: Db, item: string, perp: string): Promise<PerpQuoteWriteRow | undefined> {
  return (await sql<PerpQuoteWriteRow>`select * from rfq_write_perp_quote(${item}::jsonb, ${perp}::jsonb)`.execute(db)).rows[0];
}
