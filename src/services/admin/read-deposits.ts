/**
 * Every deposit, attributed or not (GET /admin/v1/deposits), newest first in the page envelope:
 * the operator's view of custody inflows. `accountAddress` is null for a transfer from an address
 * with no account (also listed by GET /admin/v1/deposits/unattributed).
 */
import type { DepositStatus } from '../../domain/funds/deposit-state.ts';
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
  let query = deps.db
    .selectFrom('deposits')
    .leftJoin('accounts', 'accounts.id', 'deposits.account_id')
    .selectAll('deposits')
    .select('accounts.address as account_address')
    .orderBy('deposits.created_at', 'desc')
    .orderBy('deposits.id', 'desc')
    .limit(limit + 1);
  if (filter.status) query = query.where('deposits.status', '=', filter.status);
  if (filter.cursor) {
    const after = decodeCursor(filter.cursor, 'cursor');
    query = query.where((eb) => eb.or([eb('deposits.created_at', '<', after.at), eb.and([eb('deposits.created_at', '=', after.at), eb('deposits.id', '<', after.id)])]));
  }
  const [rows, reference] = await Promise.all([query.execute(), deps.refdata.current()]);
  return pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => ({
    ...depositView(r, reference),
    accountAddress: r.account_address,
    fromAddress: r.from_address,
    blockNumber: r.block_number,
    logIndex: r.log_index,
  }));
}
