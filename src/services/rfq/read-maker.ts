/** Maker reads: open RFQs on approved pairs, and the maker's own quotes. */
import { servedInstrumentIds, type QuoteStatus } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';
import { activeMaker } from './maker-access.ts';
import { notDeniedBy, reachesMaker } from '../../store/rfq-audience.ts';
import type { PageInput } from './read-rfqs.ts';
import { makerQuoteView, openRfqView } from './views.ts';

export async function listOpenRfqs(deps: ServiceDeps, accountId: string, query: PageInput) {
  const now = deps.clock.now();
  const maker = await activeMaker(deps.db, accountId, now);
  const reference = await deps.refdata.current();
  const instrumentIds = servedInstrumentIds(maker, reference.instruments.values());
  if (instrumentIds.length === 0) return { items: [], hasMore: false };
  const limit = query.limit ?? 50;
  let select = deps.db
    .selectFrom('rfqs')
    .selectAll()
    .where('status', '=', 'PENDING')
    .where('auction_ends_at', '>', now)
    .where('instrument_id', 'in', instrumentIds)
    .where('account_id', '<>', accountId)
    // Counterparty choice: only RFQs whose audience reaches this maker, none of a taker it denies.
    .where(reachesMaker(accountId))
    .where(notDeniedBy(maker.deniedTakers))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit + 1);
  if (query.cursor) {
    const after = decodeCursor(query.cursor, 'cursor');
    select = select.where((eb) => eb.or([eb('created_at', '>', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '>', after.id)])]));
  }
  const rows = await select.execute();
  return pageOf(rows, limit, (row) => ({ at: row.created_at, id: row.id }), (row) => ({ ...openRfqView(row, reference.instruments.get(row.instrument_id)!), taker: deps.pseudonyms.of(accountId, row.account_id) }));
}

export async function listMakerQuotes(deps: ServiceDeps, accountId: string, query: PageInput & { status?: QuoteStatus[] | undefined }) {
  const limit = query.limit ?? 50;
  let select = deps.db
    .selectFrom('quotes')
    .innerJoin('rfqs', 'rfqs.id', 'quotes.rfq_id')
    .selectAll('quotes')
    .select(['rfqs.instrument_id', 'rfqs.side'])
    .where('quotes.maker_account_id', '=', accountId)
    .orderBy('quotes.created_at', 'desc')
    .orderBy('quotes.id', 'desc')
    .limit(limit + 1);
  if (query.status && query.status.length > 0) select = select.where('quotes.status', 'in', query.status);
  if (query.cursor) {
    const after = decodeCursor(query.cursor, 'cursor');
    select = select.where((eb) => eb.or([eb('quotes.created_at', '<', after.at), eb.and([eb('quotes.created_at', '=', after.at), eb('quotes.id', '<', after.id)])]));
  }
  const rows = await select.execute();
  const reference = await deps.refdata.current();
  return pageOf(rows, limit, (row) => ({ at: row.created_at, id: row.id }), (row) => makerQuoteView(row, row, reference.instruments.get(row.instrument_id)!));
}
