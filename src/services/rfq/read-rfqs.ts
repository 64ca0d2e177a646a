/** Taker reads: one RFQ, the RFQ list, an RFQ's quotes (anonymised), one quote. */
import { ServiceError } from '../../domain/errors.ts';
import type { QuoteStatus, RfqStatus } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';
import { quotesOfRfqPage, rfqsOfTaker } from '../../store/rfq-pages.ts';
import { findQuote, rfqRow } from '../../store/rfq-rows.ts';
import { resolveInstrument } from './create-rfq.ts';
import { ownRfq } from './rows.ts';
import { quoteView, rfqView } from './views.ts';

export interface PageInput { limit?: number | undefined; cursor?: string | undefined }

export async function getRfq(deps: ServiceDeps, accountId: string, rfqId: string) {
  const rfq = await ownRfq(deps.db, rfqId, accountId);
  return rfqView(rfq, await resolveInstrument(deps, rfq.instrument_id));
}

export async function listRfqs(deps: ServiceDeps, accountId: string, query: PageInput & { status?: RfqStatus | undefined }) {
  const limit = query.limit ?? 50;
  const after = query.cursor ? decodeCursor(query.cursor, 'cursor') : null;
  const rows = await rfqsOfTaker(deps.db, accountId, { status: query.status ?? null, after, limit });
  const reference = await deps.refdata.current();
  return pageOf(rows, limit, (row) => ({ at: row.created_at, id: row.id }), (row) => rfqView(row, reference.instruments.get(row.instrument_id)!));
}

export async function listRfqQuotes(deps: ServiceDeps, accountId: string, rfqId: string, query: PageInput & { status?: QuoteStatus | undefined }) {
  const rfq = await ownRfq(deps.db, rfqId, accountId);
  const instrument = await resolveInstrument(deps, rfq.instrument_id);
  const limit = query.limit ?? 50;
  const after = query.cursor ? decodeCursor(query.cursor, 'cursor') : null;
  const rows = await quotesOfRfqPage(deps.db, rfq.id, { status: query.status ?? null, after, limit });
  return pageOf(rows, limit, (row) => ({ at: row.received_at, id: row.id }), (row) => quoteView(row, rfq, instrument));
}

/** The taker reads a quote on one of its own RFQs; another account's quote is not revealed. */
export async function getQuoteForTaker(deps: ServiceDeps, accountId: string, quoteId: string) {
  const quote = await findQuote(deps.db, quoteId);
  if (!quote) throw new ServiceError('NOT_FOUND', 'no such quote');
  const rfq = await rfqRow(deps.db, quote.rfq_id);
  if (rfq.account_id !== accountId) throw new ServiceError('NOT_FOUND', 'no such quote');
  return quoteView(quote, rfq, await resolveInstrument(deps, rfq.instrument_id));
}
