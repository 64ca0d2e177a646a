/**
 * The auction close's locks and writes, one database call each.
 *
 * `rfq_close_lock` takes what the close decides from, in the order every batch of selections
 * takes its locks: the due RFQs among those asked, still PENDING, not being accepted as a perp
 * (an executor's check in flight), FOR UPDATE SKIP LOCKED in id order (a second closer skips
 * them); their quotes FOR UPDATE in id order; and for the open quotes of autoAccept RFQs, each
 * (maker, instrument) protection row FOR UPDATE with its selections in the window
 * (`rfq_locked_protections`, accept-functions.ts), in (maker, instrument) order; and which of
 * those makers may not be selected at all (`rfq_barred_makers`, accept-functions.ts).
 *
 * `rfq_close_write` relocks or
 * releases the autoAccept takers' funds (`rfq_relock_many`, ledger.ts), writes the batch's RFQ and
 * quote transitions (`rfq_write_rfq_statuses`, `rfq_write_quote_statuses`: every row in its
 * `from` status or the call raises and the transaction rolls back), and answers the ended locks,
 * the written rows and the balances of every account whose lock it ended, from which the use case
 * (src/services/rfq/close-auction.ts) builds its frames. It decides nothing.
 */
import { sql, type Selectable } from 'kysely';
import { decodeRow, parseExactJson } from './json-rows.ts';
import { PROTECTION_COLUMNS, type LockedProtection } from './accept-functions.ts';
import { relockArguments, type LiveLock, type LockChange, type Rail } from './ledger.ts';
import { quoteStatusArguments, type QuoteStatusWrite } from './quote-status.ts';
import { rfqStatusArguments, type RfqCloseChange } from './rfq-status.ts';
import { BALANCE_COLUMNS, QUOTE_COLUMNS, RFQ_COLUMNS } from './row-columns.ts';
import type { BalancesTable, QuotesTable, RfqsTable } from './schema.ts';
import type { Tx } from './transaction.ts';

export interface CloseLocked {
  /** The RFQs this close took, in id order. */
  rfqs: Array<Selectable<RfqsTable>>;
  /** Their quotes, in id order. */
  quotes: Array<Selectable<QuotesTable>>;
  protections: LockedProtection[];
  /** The makers of those open quotes that may not be selected (`rfq_barred_makers`). */
  barred: string[];
}

/** Locks the due auctions among `rfqIds` that no other closer holds, with what their close reads (above). */
export async function lockClose(tx: Tx, rfqIds: readonly string[], now: number): Promise<CloseLocked> {
  const { rows } = await sql<{ locked: string }>`select rfq_close_lock(${[...rfqIds]}::text[], ${now}::int8)::text as locked`.execute(tx);
  const locked = parseExactJson<{ rfqs: Json[]; quotes: Json[]; protections: Json[]; barred: string[] }>(rows[0]!.locked);
  return {
    rfqs: locked.rfqs.map((r) => decodeRow(r, RFQ_COLUMNS)),
    quotes: locked.quotes.map((q) => decodeRow(q, QUOTE_COLUMNS)),
    protections: locked.protections.map((p) => decodeRow(p, PROTECTION_COLUMNS)),
    barred: locked.barred,
  };
}

export interface CloseWrite {
  now: number;
  locks: LockChange[];
  rfqs: RfqCloseChange[];
  quotes: QuoteStatusWrite[];
}

export interface CloseWritten {
  /** Each ended lock by its owner (the RFQ id). */
  ended: Map<string, LiveLock>;
  /** RFQs and quotes in the order asked. */
  rfqs: Array<Selectable<RfqsTable>>;
  quotes: Array<Selectable<QuotesTable>>;
  /** The balances of every account whose lock ended, in (account, token, rail) order. */
  balances: Array<Selectable<BalancesTable>>;
}

type Json = Record<string, unknown>;

export async function writeClose(tx: Tx, write: CloseWrite): Promise<CloseWritten> {
  const [owners, reasons, lockIds, kept] = relockArguments(write.locks);
  const [rfqIds, rfqFrom, rfqTo, rfqFields] = rfqStatusArguments(write.rfqs);
  const [quoteIds, quoteFrom, quoteTo, deadlines, fields] = quoteStatusArguments(write.quotes);
  const { rows } = await sql<{ written: string }>`
    select rfq_close_write(${write.now}::int8,
      ${owners}::text[], ${reasons}::text[], ${lockIds}::uuid[], ${kept}::numeric[],
      ${rfqIds}::text[], ${rfqFrom}::text[], ${rfqTo}::text[], ${rfqFields}::text[],
      ${quoteIds}::text[], ${quoteFrom}::text[], ${quoteTo}::text[], ${deadlines}::int8[], ${fields}::text[])::text as written
  `.execute(tx);
  const written = parseExactJson<{ ended: Json[]; rfqs: Json[]; quotes: Json[]; balances: Json[] }>(rows[0]!.written);
  const ended = new Map<string, LiveLock>();
  for (const e of written.ended) {
    ended.set(e.owner_id as string, { lockId: e.lock_id as string, accountId: e.account_id as string, token: e.token as string, rail: e.rail as Rail, amount: BigInt(e.amount as string) });
  }
  const rfqById = new Map(written.rfqs.map((r) => decodeRow(r, RFQ_COLUMNS)).map((r) => [r.id, r]));
  const quoteById = new Map(written.quotes.map((q) => decodeRow(q, QUOTE_COLUMNS)).map((q) => [q.id, q]));
  return {
    ended,
    rfqs: write.rfqs.map((r) => rfqById.get(r.id)!),
    quotes: write.quotes.map((q) => quoteById.get(q.id)!),
    balances: written.balances.map((b) => decodeRow(b, BALANCE_COLUMNS)),
  };
}
