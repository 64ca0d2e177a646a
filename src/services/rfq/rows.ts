/**
 * Loading RFQ and quote rows, with the row locks the use cases need, and mapping them to the
 * domain's terms. Lock order is always RFQ before its quotes, so use cases cannot deadlock.
 */
import type { Selectable } from 'kysely';
import { ServiceError } from '../../domain/errors.ts';
import type { QuoteTerms, RfqStatus, RfqTerms, Instrument } from '../../domain/rfq/index.ts';
import type { QuotesTable, RfqsTable } from '../../store/schema.ts';
import type { Reader, Tx } from '../../store/transaction.ts';

export type RfqRow = Selectable<RfqsTable>;
export type QuoteRow = Selectable<QuotesTable>;

export function rfqTerms(row: RfqRow, instrument: Instrument): RfqTerms {
  return {
    side: row.side,
    baseQty: row.base_qty,
    quoteLimit: row.quote_limit,
    takerFeeTenthBp: row.taker_fee_tenth_bp,
    autoAccept: row.auto_accept,
    auctionEndsAt: row.auction_ends_at,
    base: instrument.base,
    quote: instrument.quote,
    instrumentType: instrument.type,
  };
}

export function quoteTerms(row: QuoteRow): QuoteTerms {
  return {
    quoteId: row.id,
    status: row.status,
    makerPays: { token: row.maker_pays_token, amount: row.maker_pays_amount },
    makerReceives: { token: row.maker_receives_token, amount: row.maker_receives_amount },
    receivedAt: row.received_at,
    acceptableForMs: row.acceptable_for_ms,
  };
}

export function rfqStatus(row: RfqRow): RfqStatus {
  return row.status;
}

/** The caller's own RFQ, or NOT_FOUND (another account's RFQ is not revealed). */
export async function ownRfq(db: Reader, id: string, accountId: string, lock: 'update' | 'none' = 'none'): Promise<RfqRow> {
  let query = db.selectFrom('rfqs').selectAll().where('id', '=', id).where('account_id', '=', accountId);
  if (lock === 'update') query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw new ServiceError('NOT_FOUND', 'no such RFQ');
  return row;
}

export async function quotesOfRfq(tx: Tx | Reader, rfqId: string, lock: 'update' | 'none'): Promise<QuoteRow[]> {
  let query = tx.selectFrom('quotes').selectAll().where('rfq_id', '=', rfqId).orderBy('received_at').orderBy('id');
  if (lock === 'update') query = query.forUpdate();
  return query.execute();
}
