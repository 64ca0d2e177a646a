/** The operator's listing of every deposit, attributed or not, with its account's address (null when none). */
import type { DepositStatus } from '../domain/funds/deposit-state.ts';
import { newestFirst, type PageCursor } from './newest-first.ts';
import type { Reader } from './transaction.ts';

/** A page of deposits, newest first (`limit` rows at most). */
export async function listedDeposits(db: Reader, filter: { status?: DepositStatus | undefined; before?: PageCursor | undefined }, limit: number) {
  let query = db.selectFrom('deposits').leftJoin('accounts', 'accounts.id', 'deposits.account_id').selectAll('deposits').select('accounts.address as account_address');
  if (filter.status) query = query.where('deposits.status', '=', filter.status);
  return newestFirst(query, { at: 'deposits.created_at', id: 'deposits.id' }, filter.before, limit).execute();
}
