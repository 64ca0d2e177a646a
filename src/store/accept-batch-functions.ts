/**
 * Spot accepts, group-committed: accepts that arrive while a batch is in flight share
 * one transaction and one call per side, as the quotes do (src/services/rfq/accept-batch.ts keeps
 * every decision; each call does one side of it for the whole batch).
 *
 * `rfq_accept_batch_lock` takes what the decisions read, in the order every batch of selections
 * takes its locks (the auction close's, close-auction.ts):
 * 1. the items' replay claims in one call of the one claim, `rfq_claim_timestamps` (an item whose
 *    claim was lost or whose key was revoked locks nothing);
 * 2. the takers' RFQs FOR UPDATE, in id order (an RFQ that is not the item's taker's is left out:
 *    the caller answers NOT_FOUND);
 * 3. their quotes FOR UPDATE, in id order;
 * 4. for each item whose RFQ is PENDING on a spot instrument, the accepted quote's maker's
 *    protection row FOR UPDATE and its selections within the window (`rfq_locked_protections`,
 *    accept-functions.ts), in (maker, instrument) order, each pair once.
 *
 * `rfq_accept_batch_write` writes the selections the use case decided: each item's funds lock
 * (`rfq_lock_funds`, ledger.ts), in account order and arrival order within an account; an item
 * the taker's balance does not cover is left out and the rest go on. Then the RFQs' and the
 * quotes' compare-and-set of the items that locked, each one statement for the batch
 * (`rfq_write_rfq_statuses`, `rfq_write_quote_batch`: a row that moved under its lock raises, so
 * the transaction rolls back), and the balances of their takers under the frame locks
 * (`rfq_balance_frame_rows`). It answers which items locked, the rows written and the balances.
 *
 * Both answer one JSON document, read with exact numbers (json-rows.ts).
 */
import { sql, type Selectable } from 'kysely';
import { decodeRow, parseExactJson } from './json-rows.ts';
import { BALANCE_COLUMNS, QUOTE_COLUMNS, RFQ_COLUMNS } from './row-columns.ts';
import { quoteStatusArguments, type QuoteStatusWrite } from './quote-status.ts';
import { PROTECTION_COLUMNS, type LockedProtection } from './accept-functions.ts';
import { claimKey, type ClaimOutcome } from './timestamp-claims.ts';
import type { BalancesTable, QuotesTable, RfqsTable } from './schema.ts';
import type { Tx } from './transaction.ts';
import type { LockRequest } from './ledger.ts';

type RfqRow = Selectable<RfqsTable>;
type QuoteRow = Selectable<QuotesTable>;
type BalanceRow = Selectable<BalancesTable>;
type Json = Record<string, unknown>;

/** One accept of a batch, as the lock call reads it. */
export interface AcceptBatchLockItem {
  /** The request's replay claim, made inside the call; null when already claimed. */
  claim: { accessKey: string; signedAt: number } | null;
  rfqId: string;
  accountId: string;
  quoteId: string;
}

export interface AcceptBatchLocked {
  /** Each item's claim outcome by `claimKey`. */
  claims: Map<string, ClaimOutcome>;
  /** The RFQs locked, by id (each its item's taker's). */
  rfqs: Map<string, RfqRow>;
  /** The locked RFQs' quotes, in arrival order. */
  quotes: QuoteRow[];
  protections: LockedProtection[];
  /** The accepted quotes' makers that may not be selected (`rfq_barred_makers`). */
  barred: string[];
}

/** Items must name distinct RFQs and distinct claims (the batcher keeps repeats for a later batch). */
export async function lockAcceptBatch(tx: Tx, items: readonly AcceptBatchLockItem[], now: number): Promise<AcceptBatchLocked> {
  const payload = JSON.stringify(items.map((i) => ({ access_key: i.claim?.accessKey ?? null, signed_at: i.claim?.signedAt ?? null, rfq_id: i.rfqId, account: i.accountId, quote_id: i.quoteId })));
  const { rows } = await sql<{ locked: string }>`select rfq_accept_batch_lock(${payload}::jsonb, ${now}::int8)::text as locked`.execute(tx);
  const locked = parseExactJson<{ claims: Record<string, ClaimOutcome>; rfqs: Json[]; quotes: Json[]; protections: Json[]; barred?: string[] }>(rows[0]!.locked);
  return {
    claims: new Map(Object.entries(locked.claims)),
    rfqs: new Map(locked.rfqs.map((r) => decodeRow(r, RFQ_COLUMNS)).map((r) => [r.id, r])),
    quotes: locked.quotes.map((q) => decodeRow(q, QUOTE_COLUMNS)),
    protections: locked.protections.map((p) => decodeRow(p, PROTECTION_COLUMNS)),
    barred: locked.barred ?? [],
  };
}

/** The outcome of an item's claim in `lockAcceptBatch`'s answer. */
export function batchClaimOutcome(locked: AcceptBatchLocked, claim: { accessKey: string; signedAt: number }): ClaimOutcome | undefined {
  return locked.claims.get(claimKey(claim.accessKey, claim.signedAt));
}

/** One decided selection: its funds lock, the RFQ's transition, and its quotes' (the winner first). */
export interface AcceptBatchWriteItem {
  lock: LockRequest;
  rfq: { id: string; from: string; to: string; selectedQuoteId: string; quotedAt: number };
  quotes: QuoteStatusWrite[];
}

export interface AcceptBatchWritten {
  /** Indexes (into the items written) of the selections whose funds lock was covered and which were written. */
  locked: Set<number>;
  rfqs: Map<string, RfqRow>;
  quotes: Map<string, QuoteRow>;
  balances: BalanceRow[];
}

export async function writeAcceptBatch(tx: Tx, items: readonly AcceptBatchWriteItem[], now: number): Promise<AcceptBatchWritten> {
  const payload = JSON.stringify(
    items.map((i, ord) => ({
      ord,
      lock_id: i.lock.lockId,
      account: i.lock.accountId,
      token: i.lock.token,
      rail: i.lock.rail,
      amount: i.lock.amount.toString(),
      rfq_id: i.rfq.id,
      rfq_from: i.rfq.from,
      rfq_to: i.rfq.to,
      selected: i.rfq.selectedQuoteId,
      at: i.rfq.quotedAt,
    })),
  );
  const quoteItems = items.flatMap((i, ord) => i.quotes.map(() => ord));
  const [ids, from, to, deadlines, fields] = quoteStatusArguments(items.flatMap((i) => i.quotes));
  const { rows } = await sql<{ written: string }>`
    select rfq_accept_batch_write(${now}::int8, ${payload}::jsonb,
      ${quoteItems}::int[], ${ids}::text[], ${from}::text[], ${to}::text[], ${deadlines}::int8[], ${fields}::text[])::text as written
  `.execute(tx);
  const written = parseExactJson<{ locked: Array<number | string | bigint>; rfqs?: Json[]; quotes?: Json[]; balances?: Json[] }>(rows[0]!.written);
  return {
    locked: new Set(written.locked.map(Number)),
    rfqs: new Map((written.rfqs ?? []).map((r) => decodeRow(r, RFQ_COLUMNS)).map((r) => [r.id, r])),
    quotes: new Map((written.quotes ?? []).map((q) => decodeRow(q, QUOTE_COLUMNS)).map((q) => [q.id, q])),
    balances: (written.balances ?? []).map((b) => decodeRow(b, BALANCE_COLUMNS)),
  };
}
