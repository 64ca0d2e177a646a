/**
 * Every deposit, attributed or not (GET /admin/v1/deposits), newest first in the page envelope:
 * the operator's view of custody inflows. `accountAddress` is null for a transfer from an address
 * with no account (also listed by GET /admin/v1/deposits/unattributed).
 */
import type { DepositStatus } from '../../domain/funds/deposit-state.ts';
import { listedDeposits } from '../../store/deposit-listing.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';
import { depositView } from '../funds/deposits.ts';

export interface AdminDepositFilter {
  status?: DepositStatus | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export async function listAllDeposits(deps: ServiceDeps, filter: AdminDepositFilter) {
  const limit = filter.limit ?? 50;
  const before = filter.cursor ? decodeCursor(filter.cursor, 'cursor') : undefined;
  const [rows, reference] = await Promise.all([listedDeposits(deps.db, { status: filter.status, before }, limit + 1), deps.refdata.current()]);
  return pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => ({
    ...depositView(r, reference),
    accountAddress: r.account_address,
    fromAddress: r.from_address,
    blockNumber: r.block_number,
    logIndex: r.log_index,
  }));
}
