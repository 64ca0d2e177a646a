/**
 * The operator's view of RFQs (GET /admin/v1/rfqs, GET /admin/v1/rfqs/{id}): every account's,
 * with the taker and every quote's maker named, newest first in the page envelope. The same
 * views as the taker's (amounts formatted by the money module), plus who.
 */
import { getAddress, isAddress } from 'viem';
import { ServiceError, invalidField } from '../../domain/errors.ts';
import type { Instrument, RfqStatus } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';
import type { QuoteRow, RfqRow } from '../rfq/rows.ts';
import { quoteView, rfqView } from '../rfq/views.ts';
import { instrumentNotFound } from '../../domain/rfq/instrument-not-found.ts';
import { listedRfq, listedRfqs, quotesWithMakers } from '../../store/rfq-listings.ts';

export interface AdminRfqFilter {
  status?: RfqStatus | undefined;
  instrumentId?: string | undefined;
  /** The taker's address. */
  account?: string | undefined;
  /** `createdAt` bounds, unix ms: from inclusive, to exclusive. */
  from?: number | undefined;
  to?: number | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

type AdminQuoteRow = QuoteRow & { maker_address: string };

function adminQuoteView(row: AdminQuoteRow, rfq: RfqRow, instrument: Instrument) {
  return {
    ...quoteView(row, rfq, instrument),
    makerId: row.maker_id,
    makerAddress: row.maker_address,
    settlementMode: row.settlement_mode,
    ...(row.settled_at === null ? {} : { settledAt: row.settled_at }),
    ...(row.tx_hash === null ? {} : { txHash: row.tx_hash }),
  };
}

function adminRfqView(row: RfqRow & { taker_address: string }, quotes: AdminQuoteRow[], instrument: Instrument) {
  return {
    ...rfqView(row, instrument),
    accountId: row.account_id,
    takerAddress: row.taker_address,
    ...(row.selected_quote_id === null ? {} : { selectedQuoteId: row.selected_quote_id }),
    quotes: quotes.map((q) => adminQuoteView(q, row, instrument)),
  };
}

/** Every version-current quote of these RFQs with its maker's address, newest first, grouped by RFQ. */
async function quotesOf(deps: ServiceDeps, rfqIds: string[]): Promise<Map<string, AdminQuoteRow[]>> {
  const byRfq = new Map<string, AdminQuoteRow[]>();
  for (const row of await quotesWithMakers(deps.db, rfqIds)) {
    const list = byRfq.get(row.rfq_id) ?? [];
    list.push(row);
    byRfq.set(row.rfq_id, list);
  }
  return byRfq;
}

function instrumentOf(instruments: Map<string, Instrument>, instrumentId: string): Instrument {
  const instrument = instruments.get(instrumentId);
  if (!instrument) throw instrumentNotFound(instrumentId, instruments.keys());
  return instrument;
}

export async function listAdminRfqs(deps: ServiceDeps, filter: AdminRfqFilter) {
  const limit = filter.limit ?? 50;
  if (filter.account && !isAddress(filter.account, { strict: false })) throw invalidField('account', 'address', 'account must be a 0x address');
  const takerAddress = filter.account ? getAddress(filter.account) : undefined;
  const before = filter.cursor ? decodeCursor(filter.cursor, 'cursor') : undefined;
  const rows = await listedRfqs(deps.db, { status: filter.status, instrumentId: filter.instrumentId, takerAddress, from: filter.from, to: filter.to, before }, limit + 1);
  const quotes = await quotesOf(deps, rows.slice(0, limit).map((r) => r.id));
  const { instruments } = await deps.refdata.current();
  return pageOf(rows, limit, (row) => ({ at: row.created_at, id: row.id }), (row) => adminRfqView(row, quotes.get(row.id) ?? [], instrumentOf(instruments, row.instrument_id)));
}

export async function getAdminRfq(deps: ServiceDeps, rfqId: string) {
  const row = await listedRfq(deps.db, rfqId);
  if (!row) throw new ServiceError('NOT_FOUND', 'no such rfq');
  const quotes = await quotesOf(deps, [row.id]);
  const { instruments } = await deps.refdata.current();
  return adminRfqView(row, quotes.get(row.id) ?? [], instrumentOf(instruments, row.instrument_id));
}
