/**
 * Every account's `/v0` withdrawals (venue `spotSend`s from the omnibus) for the operator
 * (GET /admin/v1/v0/withdrawals), newest first in the admin page envelope, optionally by state or
 * by the owner's address. Amounts are decimal strings in the token's ledger units.
 */
import { formatAmount } from '../../domain/money/index.ts';
import { getAddress } from 'viem';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';

export interface AdminV0WithdrawalFilter {
  state?: 'pending' | 'completed' | 'failed' | undefined;
  /** The owner's address (any case; accounts keep the EIP-55 form). */
  account?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export async function listV0Withdrawals(deps: ServiceDeps, filter: AdminV0WithdrawalFilter) {
  const limit = filter.limit ?? 50;
  let query = deps.db
    .selectFrom('v0_withdrawals')
    .innerJoin('accounts', 'accounts.id', 'v0_withdrawals.account_id')
    .innerJoin('tokens', 'tokens.symbol', 'v0_withdrawals.token')
    .selectAll('v0_withdrawals')
    .select(['accounts.address as account_address', 'tokens.decimals'])
    .orderBy('v0_withdrawals.created_at', 'desc')
    .orderBy('v0_withdrawals.id', 'desc')
    .limit(limit + 1);
  if (filter.state) query = query.where('v0_withdrawals.state', '=', filter.state);
  if (filter.account) query = query.where('accounts.address', '=', getAddress(filter.account));
  if (filter.cursor) {
    const after = decodeCursor(filter.cursor, 'cursor');
    query = query.where((eb) => eb.or([eb('v0_withdrawals.created_at', '<', after.at), eb.and([eb('v0_withdrawals.created_at', '=', after.at), eb('v0_withdrawals.id', '<', after.id)])]));
  }
  const rows = await query.execute();
  return pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => ({
    withdrawalId: r.id,
    accountAddress: r.account_address,
    token: r.token,
    amount: formatAmount(r.amount, r.decimals),
    toAddress: r.to_address,
    state: r.state,
    txHash: r.tx_hash,
    errorMessage: r.error_message,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  }));
}
