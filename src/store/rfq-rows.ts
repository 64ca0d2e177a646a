/**
 * One RFQ or quote row by id, read or locked as a use case needs it. Lock order is always the RFQ
 * before its quotes (src/services/rfq/rows.ts), so use cases cannot deadlock. The `...Row`
 * reads throw (Kysely's NoResultError) where a foreign key or a held lock vouches for the row.
 */
import type { Selectable } from 'kysely';
import type { QuoteStatus, RfqStatus } from '../domain/rfq/types.ts';
import type { QuotesTable, RfqsTable } from './schema.ts';
import type { Reader, Tx } from './transaction.ts';

export type RfqRow = Selectable<RfqsTable>;
export type QuoteRow = Selectable<QuotesTable>;

export async function findRfq(db: Reader, id: string): Promise<RfqRow | undefined> {
  return db.selectFrom('rfqs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function rfqRow(db: Reader, id: string): Promise<RfqRow> {
  return db.selectFrom('rfqs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The RFQ FOR UPDATE. */
export async function lockRfq(tx: Tx, id: string): Promise<RfqRow> {
  return tx.selectFrom('rfqs').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
}

/** The RFQ FOR UPDATE while it is in `status`; undefined once it has moved on. */
export async function lockRfqIn(tx: Tx, id: string, status: RfqStatus): Promise<RfqRow | undefined> {
  return tx.selectFrom('rfqs').selectAll().where('id', '=', id).where('status', '=', status).forUpdate().executeTakeFirst();
}

/** The account's RFQ (FOR UPDATE with `lock: 'update'`); undefined for another account's. */
export async function rfqOfAccount(db: Reader, id: string, accountId: string, lock: 'update' | 'none'): Promise<RfqRow | undefined> {
  let query = db.selectFrom('rfqs').selectAll().where('id', '=', id).where('account_id', '=', accountId);
  if (lock === 'update') query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Where the RFQ stands now: its status and when its auction ends. */
export async function rfqPhase(db: Reader, id: string): Promise<{ status: RfqStatus; auction_ends_at: number }> {
  return db.selectFrom('rfqs').select(['status', 'auction_ends_at']).where('id', '=', id).executeTakeFirstOrThrow();
}

/** The RFQ's quotes in arrival order (FOR UPDATE with `lock: 'update'`). */
export async function quotesOfRfq(db: Reader, rfqId: string, lock: 'update' | 'none'): Promise<QuoteRow[]> {
  let query = db.selectFrom('quotes').selectAll().where('rfq_id', '=', rfqId).orderBy('received_at').orderBy('id');
  if (lock === 'update') query = query.forUpdate();
  return query.execute();
}

export async function findQuote(db: Reader, id: string): Promise<QuoteRow | undefined> {
  return db.selectFrom('quotes').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whose the quote is and on which RFQ, read without a lock (to lock its RFQ first). */
export async function quoteOwner(db: Reader, id: string): Promise<{ rfq_id: string; maker_account_id: string } | undefined> {
  return db.selectFrom('quotes').select(['rfq_id', 'maker_account_id']).where('id', '=', id).executeTakeFirst();
}

/** The RFQ of the quote. */
export async function rfqIdOfQuote(db: Reader, id: string): Promise<string> {
  return (await db.selectFrom('quotes').select('rfq_id').where('id', '=', id).executeTakeFirstOrThrow()).rfq_id;
}

/** The quote FOR UPDATE. */
export async function lockQuote(tx: Tx, id: string): Promise<QuoteRow> {
  return tx.selectFrom('quotes').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
}

/** The quote FOR UPDATE if it exists. */
export async function lockQuoteIfAny(tx: Tx, id: string): Promise<QuoteRow | undefined> {
  return tx.selectFrom('quotes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The quote FOR UPDATE while it is in `status`; undefined once it has moved on. */
export async function lockQuoteIn(tx: Tx, id: string, status: QuoteStatus): Promise<QuoteRow | undefined> {
  return tx.selectFrom('quotes').selectAll().where('id', '=', id).where('status', '=', status).forUpdate().executeTakeFirst();
}

/** The status of the maker's quote on the RFQ (a maker holds at most one there). */
export async function makerQuoteStatus(db: Reader, rfqId: string, makerAccountId: string): Promise<QuoteStatus> {
  return (await db.selectFrom('quotes').select('status').where('rfq_id', '=', rfqId).where('maker_account_id', '=', makerAccountId).executeTakeFirstOrThrow()).status;
}
