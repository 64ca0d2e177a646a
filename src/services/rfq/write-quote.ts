/**
 * The quote write in one call of `rfq_write_quote` (migration 0004; one round trip, its own
 * implicit transaction): re-checks
 * everything that can change (RFQ still PENDING and open, locked FOR SHARE so an accept or close
 * waits for it; maker active, unsuspended, approved for the pair and mode), inserts or re-prices
 * the quote (only while SUBMITTED), and writes the taker's `quoteUpdate` and the maker's
 * `quoteStatus` frames with their sequence numbers. The frames are rendered in TypeScript; SQL
 * only fills in the quote id and version it assigns.
 */
import { sql } from 'kysely';
import type { Db } from '../../store/transaction.ts';

export interface QuoteWrite {
  /** The request's replay claim, made inside the write; null when already claimed. */
  claim: { accessKey: string; signedAt: number } | null;
  quoteId: string;
  rfqId: string;
  takerAccountId: string;
  makerAccountId: string;
  pair: string;
  mode: string;
  makerPaysToken: string;
  makerPaysAmount: bigint;
  makerReceivesToken: string;
  makerReceivesAmount: bigint;
  takerFee: bigint;
  takerTotal: bigint;
  acceptableForMs: number | null;
  now: number;
  takerFrame: Record<string, unknown>;
  makerFrame: Record<string, unknown>;
}

export interface QuoteWriteOutcome {
  reused: boolean;
  rfqOpen: boolean;
  makerAllowed: boolean;
  quoteId: string | null;
  version: number | null;
}

export async function writeQuote(db: Db, w: QuoteWrite): Promise<QuoteWriteOutcome> {
  const result = await sql<{ out_reused: boolean; out_rfq_open: boolean; out_maker_allowed: boolean; out_quote_id: string | null; out_version: number | null }>`
    select * from rfq_write_quote(
      ${w.claim?.accessKey ?? null}::text, ${w.claim?.signedAt ?? null}::int8, ${w.quoteId}, ${w.rfqId}, ${w.takerAccountId}::uuid, ${w.makerAccountId}::uuid, ${w.pair}, ${w.mode},
      ${w.makerPaysToken}, ${w.makerPaysAmount}::numeric, ${w.makerReceivesToken}, ${w.makerReceivesAmount}::numeric,
      ${w.takerFee}::numeric, ${w.takerTotal}::numeric, ${w.acceptableForMs}::int8, ${w.now}::int8,
      ${JSON.stringify(w.takerFrame)}::jsonb, ${JSON.stringify(w.makerFrame)}::jsonb)
  `.execute(db);
  const row = result.rows[0]!;
  return {
    reused: row.out_reused,
    rfqOpen: row.out_rfq_open,
    makerAllowed: row.out_maker_allowed,
    quoteId: row.out_quote_id,
    version: row.out_version === null ? null : Number(row.out_version),
  };
}
