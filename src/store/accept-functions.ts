/**
 * The taker's accept in two database calls instead of ten: the use case
 * (src/services/rfq/accept-quote.ts) keeps every decision, and each call does one side of it.
 *
 * `rfq_accept_lock` takes what the decisions read, in the lock order every selection takes:
 * 1. the request's replay claim through the one claim, `rfq_claim_timestamps` (stops there unless
 *    `claimed`: nothing else is locked for a replay or a revoked key);
 * 2. the taker's RFQ FOR UPDATE (none: stops, the caller answers NOT_FOUND);
 * 3. its quotes FOR UPDATE, in arrival order;
 * 4. while the RFQ is PENDING, on a spot instrument, for the accepted quote's maker: the maker's
 *    protection row FOR UPDATE and its selections within the window (`rfq_locked_protections`,
 *    as selection-guard.ts reads them), and whether that maker may be selected at all
 *    (`rfq_barred_makers`).
 *
 * `rfq_accept_write` writes the selection the use case decided, through the same definitions
 * the other writers use: the taker's funds lock (`rfq_lock_funds`, ledger.ts; stops with
 * `locked: false` when the balance does not cover it), the RFQ's and the quotes' compare-and-set
 * (`rfq_write_rfq_statuses`, `rfq_write_quote_statuses`; a row that moved under its lock raises,
 * so the transaction rolls back), and answers the written rows and the taker's balances after
 * the lock, from which the use case builds its frames.
 *
 * Both answer one JSON document, read with exact numbers (json-rows.ts).
 */
import { sql, type Selectable } from 'kysely';
import { decodeRow, parseExactJson, type NumericColumns } from './json-rows.ts';
import { BALANCE_COLUMNS, QUOTE_COLUMNS, RFQ_COLUMNS } from './row-columns.ts';
import { quoteStatusArguments, type QuoteStatusWrite } from './quote-status.ts';
import type { BalancesTable, MakerProtectionsTable, QuotesTable, RfqsTable } from './schema.ts';
import type { ClaimOutcome } from './timestamp-claims.ts';
import type { Tx } from './transaction.ts';
import type { LockRequest } from './ledger.ts';

type RfqRow = Selectable<RfqsTable>;
type QuoteRow = Selectable<QuotesTable>;
type BalanceRow = Selectable<BalancesTable>;

/** A maker's protection as locked for a selection, with its selections inside the window. */
export type LockedProtection = Pick<MakerProtectionsTable, 'maker_account_id' | 'instrument_id' | 'window_ms' | 'max_selected_quotes' | 'max_selected_notional' | 'triggered_at'> & {
  selected_count: number;
  selected_notional: bigint;
};

export const PROTECTION_COLUMNS: NumericColumns<LockedProtection> = {
  bigints: { max_selected_notional: true, selected_notional: true },
  numbers: { window_ms: true, max_selected_quotes: true, triggered_at: true, selected_count: true },
};

type Json = Record<string, unknown>;

export interface AcceptLocked {
  /** The claim's outcome; null when the request's claim was not left to this call. */
  claim: ClaimOutcome | null;
  /** The taker's RFQ, locked; null when there is none (or the claim failed). */
  rfq: RfqRow | null;
  quotes: QuoteRow[];
  protections: LockedProtection[];
  /** The accepted quote's maker when it may not be selected (`rfq_barred_makers`). */
  barred: string[];
}

export async function lockForAccept(
  tx: Tx,
  request: { claim: { accessKey: string; signedAt: number } | null; rfqId: string; accountId: string; quoteId: string; now: number },
): Promise<AcceptLocked> {
  const { rows } = await sql<{ locked: string }>`
    select rfq_accept_lock(${request.claim?.accessKey ?? null}::text, ${request.claim?.signedAt ?? null}::int8, ${request.rfqId}::text, ${request.accountId}::uuid, ${request.quoteId}::text, ${request.now}::int8)::text as locked
  `.execute(tx);
  const locked = parseExactJson<{ claim: ClaimOutcome | null; rfq?: Json; quotes?: Json[]; protections?: Json[]; barred?: string[] }>(rows[0]!.locked);
  return {
    claim: locked.claim ?? null,
    rfq: locked.rfq ? decodeRow(locked.rfq, RFQ_COLUMNS) : null,
    quotes: (locked.quotes ?? []).map((q) => decodeRow(q, QUOTE_COLUMNS)),
    protections: (locked.protections ?? []).map((p) => decodeRow(p, PROTECTION_COLUMNS)),
    barred: locked.barred ?? [],
  };
}

export interface AcceptWrite {
  now: number;
  lock: LockRequest;
  rfq: { id: string; from: string; to: string; selectedQuoteId: string };
  /** The winner first, then the other open quotes. */
  quotes: QuoteStatusWrite[];
}

/** The written rows (quotes in the order asked) and the taker's balances; null when the funds lock was not covered. */
export async function writeAcceptSelection(tx: Tx, write: AcceptWrite): Promise<{ rfq: RfqRow; quotes: QuoteRow[]; balances: BalanceRow[] } | null> {
  const [ids, from, to, deadlines, fields] = quoteStatusArguments(write.quotes);
  const { lock, rfq } = write;
  const { rows } = await sql<{ written: string }>`
    select rfq_accept_write(
      ${write.now}::int8, ${lock.lockId}::uuid, ${lock.accountId}::uuid, ${lock.token}::text, ${lock.rail}::text, ${lock.amount.toString()}::numeric,
      ${rfq.id}::text, ${rfq.from}::text, ${rfq.to}::text, ${rfq.selectedQuoteId}::text,
      ${ids}::text[], ${from}::text[], ${to}::text[], ${deadlines}::int8[], ${fields}::text[])::text as written
  `.execute(tx);
  const written = parseExactJson<{ locked: boolean; rfq?: Json; quotes?: Json[]; balances?: Json[] }>(rows[0]!.written);
  if (!written.locked) return null;
  const byId = new Map((written.quotes ?? []).map((q) => decodeRow(q, QUOTE_COLUMNS)).map((q) => [q.id, q]));
  return {
    rfq: decodeRow(written.rfq!, RFQ_COLUMNS),
    quotes: write.quotes.map((q) => byId.get(q.id)!),
    balances: (written.balances ?? []).map((b) => decodeRow(b, BALANCE_COLUMNS)),
  };
}
