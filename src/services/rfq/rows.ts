/**
 * RFQ and quote rows mapped to the domain's terms, and the caller's own RFQ. The rows are read
 * and locked in src/store/rfq-rows.ts; lock order is always RFQ before its quotes, so use cases
 * cannot deadlock.
 */
import { ServiceError } from '../../domain/errors.ts';
import type { QuoteTerms, RfqStatus, RfqTerms, Instrument, SweepTerms } from '../../domain/rfq/index.ts';
import type { Reader } from '../../store/transaction.ts';
import { rfqOfAccount, type QuoteRow, type RfqRow } from '../../store/rfq-rows.ts';

export type { QuoteRow, RfqRow };

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

/**
 * A SWEEP RFQ's terms for the selection (sweep-selection.ts). A spot base is cut on its own
 * smallest unit; perp sweeps are not offered (create-rfq.ts).
 */
export function sweepTerms(row: RfqRow, instrument: Instrument): SweepTerms {
  return {
    side: row.side,
    baseQty: row.base_qty,
    minFillQty: row.min_fill_qty ?? row.base_qty,
    quoteLimit: row.quote_limit,
    takerFeeTenthBp: row.taker_fee_tenth_bp,
    instrumentType: instrument.type,
    baseStep: 1n,
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
  const row = await rfqOfAccount(db, id, accountId, lock);
  if (!row) throw new ServiceError('NOT_FOUND', 'no such RFQ');
  return row;
}
