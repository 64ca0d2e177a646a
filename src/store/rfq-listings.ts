/**
 * The operator's listing of every account's RFQs: each with its taker's address, and their
 * quotes with each maker's address.
 */
import type { RfqStatus } from '../domain/rfq/index.ts';
import { newestFirst, type PageCursor } from './newest-first.ts';
import type { Reader } from './transaction.ts';

export interface RfqListingFilter {
  status?: RfqStatus | undefined;
  instrumentId?: string | undefined;
  /** The taker's address (EIP-55). */
  takerAddress?: string | undefined;
  /** `created_at` bounds, unix ms: from inclusive, to exclusive. */
  from?: number | undefined;
  to?: number | undefined;
  before?: PageCursor | undefined;
}

function rfqsWithTakers(db: Reader) {
  return db.selectFrom('rfqs').innerJoin('accounts', 'accounts.id', 'rfqs.account_id').selectAll('rfqs').select('accounts.address as taker_address');
}

/** A page of RFQs with their takers' addresses, newest first (`limit` rows at most). */
export async function listedRfqs(db: Reader, filter: RfqListingFilter, limit: number) {
  let select = rfqsWithTakers(db);
  if (filter.status) select = select.where('rfqs.status', '=', filter.status);
  if (filter.instrumentId) select = select.where('rfqs.instrument_id', '=', filter.instrumentId);
  if (filter.takerAddress) select = select.where('accounts.address', '=', filter.takerAddress);
  if (filter.from !== undefined) select = select.where('rfqs.created_at', '>=', filter.from);
  if (filter.to !== undefined) select = select.where('rfqs.created_at', '<', filter.to);
  return newestFirst(select, { at: 'rfqs.created_at', id: 'rfqs.id' }, filter.before, limit).execute();
}

/** One RFQ with its taker's address; undefined when there is none. */
export async function listedRfq(db: Reader, rfqId: string) {
  return rfqsWithTakers(db).where('rfqs.id', '=', rfqId).executeTakeFirst();
}

/** Every quote of these RFQs with its maker's address, newest received first (empty ids: none). */
export async function quotesWithMakers(db: Reader, rfqIds: readonly string[]) {
  if (rfqIds.length === 0) return [];
  return db
    .selectFrom('quotes')
    .innerJoin('accounts', 'accounts.id', 'quotes.maker_account_id')
    .selectAll('quotes')
    .select('accounts.address as maker_address')
    .where('quotes.rfq_id', 'in', [...rfqIds])
    .orderBy('quotes.received_at', 'desc')
    .orderBy('quotes.id', 'desc')
    .execute();
}
