/**
 * Every account's `/v0` orders for the operator (GET /admin/v1/v0/orders), newest first in the
 * page envelope of the other admin listings, optionally by status or by the owner's address.
 * Amounts are as the venue counts them (x 10^weiDecimals of the base) and prices x 10^8, exact
 * integer strings as `/v0` reports them; nothing here asks the venue, so the listing works while
 * it is down.
 */
import { getAddress } from 'viem';
import type { V0OrderStatus } from '../../domain/v0/order-status.ts';
import { v0OrdersWithOwners } from '../../store/v0-order-reads.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';

export interface AdminV0OrderFilter {
  status?: V0OrderStatus | undefined;
  /** The owner's address (any case; accounts keep the EIP-55 form). */
  account?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export async function listV0Orders(deps: ServiceDeps, filter: AdminV0OrderFilter) {
  const limit = filter.limit ?? 50;
  const address = filter.account ? getAddress(filter.account) : undefined;
  const before = filter.cursor ? decodeCursor(filter.cursor, 'cursor') : undefined;
  const rows = await v0OrdersWithOwners(deps.db, { status: filter.status, address, before }, limit + 1);
  return pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => ({
    orderId: r.id,
    orderUuid: r.order_uuid,
    clientOrderId: r.cloid,
    accountAddress: r.account_address,
    side: r.side,
    orderType: r.order_type,
    timeInForce: r.tif,
    baseToken: r.base_token,
    quoteToken: r.quote_token,
    amount: r.amount.toString(),
    price: r.price.toString(),
    filledAmount: r.filled_amount.toString(),
    status: r.status,
    cancelRequested: r.cancel_requested,
    venueOrderId: r.oid,
    errorMessage: r.error_message,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}
