/**
 * Every account's `/v0` withdrawals (venue `spotSend`s from the omnibus) for the operator
 * (GET /admin/v1/v0/withdrawals), newest first in the admin page envelope, optionally by state or
 * by the owner's address. Amounts are decimal strings in the token's ledger units.
 */
import { formatAmount } from '../../domain/money/index.ts';
import type { V0WithdrawalState } from '../../domain/v0/withdrawal-status.ts';
import { getAddress } from 'viem';
import { v0WithdrawalsWithOwners } from '../../store/v0-withdrawal-rows.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';

export interface AdminV0WithdrawalFilter {
  state?: V0WithdrawalState | undefined;
  /** The owner's address (any case; accounts keep the EIP-55 form). */
  account?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export async function listV0Withdrawals(deps: ServiceDeps, filter: AdminV0WithdrawalFilter) {
  const limit = filter.limit ?? 50;
  const address = filter.account ? getAddress(filter.account) : undefined;
  const before = filter.cursor ? decodeCursor(filter.cursor, 'cursor') : undefined;
  const rows = await v0WithdrawalsWithOwners(deps.db, { state: filter.state, address, before }, limit + 1);
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
