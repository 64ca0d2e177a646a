/** Taker reads: one RFQ, the RFQ list, an RFQ's quotes (anonymised), one quote. */
import { ServiceError } from '../../domain/errors.ts';
import type { QuoteStatus, RfqStatus } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';
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
  let select = deps.db.selectFrom('rfqs').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1);
  if (query.status) select = select.where('status', '=', query.status);
  if (query.cursor) {
    const after = decodeCursor(query.cursor, 'cursor');
    select = select.where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]));
  }
  const rows = await select.execute();
  const reference = await deps.refdata.current();
  return pageOf(rows, limit, (row) => ({ at: row.created_at, id: row.id }), (row) => rfqView(row, reference.instruments.get(row.instrument_id)!));
}

export async function listRfqQuotes(deps: ServiceDeps, accountId: string, rfqId: string, query: PageInput & { status?: QuoteStatus | undefined }) {
  const rfq = await ownRfq(deps.db, rfqId, accountId);
  const instrument = await resolveInstrument(deps, rfq.instrument_id);
  const limit = query.limit ?? 50;
  let select = deps.db.selectFrom('quotes').selectAll().where('rfq_id', '=', rfq.id).orderBy('received_at', 'desc').orderBy('id', 'desc').limit(limit + 1);
  if (query.status) select = select.where('status', '=', query.status);
  if (query.cursor) {
    const after = decodeCursor(query.cursor, 'cursor');
    select = select.where((eb) => eb.or([eb('received_at', '<', after.at), eb.and([eb('received_at', '=', after.at), eb('id', '<', after.id)])]));
  }
  const rows = await select.execute();
  return pageOf(rows, limit, (row) => ({ at: row.received_at, id: row.id }), (row) => quoteView(row, rfq, instrument));
}

/** The taker reads a quote on one of its own RFQs; another account's quote is not revealed. */
export async function getQuoteForTaker(deps: ServiceDeps, accountId: string, quoteId: string) {
  const quote = await deps.db.selectFrom('quotes').selectAll().where('id', '=', quoteId).executeTakeFirst();
  if (!quote) throw new ServiceError('NOT_FOUND', 'no such quote');
  const rfq = await deps.db.selectFrom('rfqs').selectAll().where('id', '=', quote.rfq_id).executeTakeFirstOrThrow();
  if (rfq.account_id !== accountId) throw new ServiceError('NOT_FOUND', 'no such quote');
  return quoteView(quote, rfq, await resolveInstrument(deps, rfq.instrument_id));
}
