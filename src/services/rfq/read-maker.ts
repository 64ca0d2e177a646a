/** Maker reads: open RFQs on approved pairs, and the maker's own quotes. */
import { servedInstrumentIds, type QuoteStatus } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';
import { activeMaker } from './maker-access.ts';
import { openRfqsForMaker, quotesOfMaker } from '../../store/rfq-pages.ts';
import type { PageInput } from './read-rfqs.ts';
import { makerQuoteView, openRfqView } from './views.ts';

export async function listOpenRfqs(deps: ServiceDeps, accountId: string, query: PageInput) {
  const now = deps.clock.now();
  const maker = await activeMaker(deps.db, accountId, now);
  const reference = await deps.refdata.current();
  const instrumentIds = servedInstrumentIds(maker, reference.instruments.values());
  if (instrumentIds.length === 0) return { items: [], hasMore: false };
  const limit = query.limit ?? 50;
  const after = query.cursor ? decodeCursor(query.cursor, 'cursor') : null;
  // Counterparty choice: only RFQs whose audience reaches this maker, none of a taker it denies.
  const rows = await openRfqsForMaker(deps.db, { accountId, deniedTakers: maker.deniedTakers }, { instrumentIds, now, after, limit });
  return pageOf(rows, limit, (row) => ({ at: row.created_at, id: row.id }), (row) => ({ ...openRfqView(row, reference.instruments.get(row.instrument_id)!), taker: deps.pseudonyms.of(accountId, row.account_id) }));
}

export async function listMakerQuotes(deps: ServiceDeps, accountId: string, query: PageInput & { status?: QuoteStatus[] | undefined }) {
  const limit = query.limit ?? 50;
  const after = query.cursor ? decodeCursor(query.cursor, 'cursor') : null;
  const rows = await quotesOfMaker(deps.db, accountId, { statuses: query.status ?? [], after, limit });
  const reference = await deps.refdata.current();
  return pageOf(rows, limit, (row) => ({ at: row.created_at, id: row.id }), (row) => makerQuoteView(row, row, reference.instruments.get(row.instrument_id)!));
}
