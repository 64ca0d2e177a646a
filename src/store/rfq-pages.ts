/**
 * The paged lists of RFQs and quotes (the taker's and the maker's reads). Each is a keyset page
 * after a position (`after`: the last row's time and id, null for the first page) and reads
 * `limit + 1` rows: the one past the page says there is more (src/services/paging.ts).
 */
import type { Selectable } from 'kysely';
import type { QuoteStatus, RfqStatus } from '../domain/rfq/types.ts';
import { notDeniedBy, reachesMaker } from './rfq-audience.ts';
import type { QuotesTable, RfqsTable } from './schema.ts';
import type { Reader } from './transaction.ts';

export interface PageAfter { at: number; id: string }

/** The taker's RFQs, newest first, in one status when `status` is given. */
export async function rfqsOfTaker(db: Reader, accountId: string, { status, after, limit }: { status: RfqStatus | null; after: PageAfter | null; limit: number }): Promise<Array<Selectable<RfqsTable>>> {
  let select = db.selectFrom('rfqs').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1);
  if (status) select = select.where('status', '=', status);
  if (after) select = select.where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]));
  return select.execute();
}

/** The RFQ's quotes, latest received first, in one status when `status` is given. */
export async function quotesOfRfqPage(db: Reader, rfqId: string, { status, after, limit }: { status: QuoteStatus | null; after: PageAfter | null; limit: number }): Promise<Array<Selectable<QuotesTable>>> {
  let select = db.selectFrom('quotes').selectAll().where('rfq_id', '=', rfqId).orderBy('received_at', 'desc').orderBy('id', 'desc').limit(limit + 1);
  if (status) select = select.where('status', '=', status);
  if (after) select = select.where((eb) => eb.or([eb('received_at', '<', after.at), eb.and([eb('received_at', '=', after.at), eb('id', '<', after.id)])]));
  return select.execute();
}

/**
 * The open RFQs a maker may quote, oldest first: PENDING with the auction running at `now`, on
 * `instrumentIds`, not its own, whose audience reaches it and whose taker it does not deny.
 */
export async function openRfqsForMaker(
  db: Reader,
  maker: { accountId: string; deniedTakers: readonly string[] },
  { instrumentIds, now, after, limit }: { instrumentIds: readonly string[]; now: number; after: PageAfter | null; limit: number },
): Promise<Array<Selectable<RfqsTable>>> {
  let select = db
    .selectFrom('rfqs')
    .selectAll()
    .where('status', '=', 'PENDING')
    .where('auction_ends_at', '>', now)
    .where('instrument_id', 'in', [...instrumentIds])
    .where('account_id', '<>', maker.accountId)
    .where(reachesMaker(maker.accountId))
    .where(notDeniedBy(maker.deniedTakers))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit + 1);
  if (after) select = select.where((eb) => eb.or([eb('created_at', '>', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '>', after.id)])]));
  return select.execute();
}

/** The maker's quotes with their RFQ's instrument, side and fill, newest first, in `statuses` when not empty. */
export async function quotesOfMaker(db: Reader, makerAccountId: string, { statuses, after, limit }: { statuses: readonly QuoteStatus[]; after: PageAfter | null; limit: number }) {
  let select = db
    .selectFrom('quotes')
    .innerJoin('rfqs', 'rfqs.id', 'quotes.rfq_id')
    .selectAll('quotes')
    .select(['rfqs.instrument_id', 'rfqs.side', 'rfqs.fill'])
    .where('quotes.maker_account_id', '=', makerAccountId)
    .orderBy('quotes.created_at', 'desc')
    .orderBy('quotes.id', 'desc')
    .limit(limit + 1);
  if (statuses.length > 0) select = select.where('quotes.status', 'in', [...statuses]);
  if (after) select = select.where((eb) => eb.or([eb('quotes.created_at', '<', after.at), eb.and([eb('quotes.created_at', '=', after.at), eb('quotes.id', '<', after.id)])]));
  return select.execute();
}
