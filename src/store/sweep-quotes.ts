/**
 * Store calls of SWEEP RFQs (src/domain/rfq/sweep-selection.ts) that the single-quote path does
 * not make.
 */
import { sql, type Selectable } from 'kysely';
import type { QuotesTable, RfqsTable, SweepFillRecord } from './schema.ts';
import type { Db, Tx } from './transaction.ts';

/**
 * Lets the quote be cut at `version`, the version its maker just wrote with `allOrNone: false`.
 * Runs after the quote's own write: until it commits (and again after any re-quote, which
 * advances the version) the quote counts as all-or-none, the reading that never cuts a quote its
 * maker did not let be cut. Written only while the quote is still SUBMITTED at that version.
 */
export async function markQuoteDivisible(db: Db, quoteId: string, version: number): Promise<void> {
  await db.updateTable('quotes').set({ divisible_version: version }).where('id', '=', quoteId).where('version', '=', version).where('status', '=', 'SUBMITTED').execute();
}

/**
 * The taker's SWEEP RFQ FOR UPDATE, then its quotes FOR UPDATE in arrival order (the lock order
 * of every selection); null when the RFQ is not this account's.
 */
export async function lockSweepRfq(tx: Tx, rfqId: string, accountId: string): Promise<{ rfq: Selectable<RfqsTable>; quotes: Selectable<QuotesTable>[] } | null> {
  const rfq = await tx.selectFrom('rfqs').selectAll().where('id', '=', rfqId).where('account_id', '=', accountId).forUpdate().executeTakeFirst();
  if (!rfq) return null;
  const quotes = await tx.selectFrom('quotes').selectAll().where('rfq_id', '=', rfqId).orderBy('received_at').orderBy('id').forUpdate().execute();
  return { rfq, quotes };
}

/** The makers among `makers` that may not be selected now (`rfq_barred_makers`, the rule every selection applies). */
export async function barredMakers(tx: Tx, makers: readonly string[], now: number): Promise<string[]> {
  if (makers.length === 0) return [];
  const result = await sql<{ barred: string[] }>`select rfq_barred_makers(${[...makers]}::uuid[], ${now}::int8) as barred`.execute(tx);
  return result.rows[0]?.barred ?? [];
}

/** A SWEEP RFQ's legs as a leg's own transition left them (the RFQ's status unchanged); the RFQ row locked by the caller. */
export async function writeSweepFills(tx: Tx, rfqId: string, fills: readonly SweepFillRecord[], now: number): Promise<Selectable<RfqsTable>> {
  return tx.updateTable('rfqs').set({ sweep_fills: JSON.stringify(fills), updated_at: now }).where('id', '=', rfqId).returningAll().executeTakeFirstOrThrow();
}

/** The quotes `ids`, locked in id order (a sweep's open legs at its deadline). */
export async function lockQuotesById(tx: Tx, ids: readonly string[]): Promise<Selectable<QuotesTable>[]> {
  if (ids.length === 0) return [];
  return tx.selectFrom('quotes').selectAll().where('id', 'in', [...ids]).orderBy('id').forUpdate().execute();
}
