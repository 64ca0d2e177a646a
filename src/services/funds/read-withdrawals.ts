/** Withdrawal reads: the account's own (page, one by id) and the operator's list by status. */
import { ServiceError } from '../../domain/errors.ts';
import type { WithdrawalStatus } from '../../domain/funds/withdrawal-state.ts';
import { accountWithdrawal, withdrawalsPage } from '../../store/withdrawal-records.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';
import { withdrawalView } from './withdrawal-views.ts';

interface PageInput { limit?: number | undefined; cursor?: string | undefined }

export async function listWithdrawals(deps: ServiceDeps, filter: { accountId?: string; status?: WithdrawalStatus | undefined }, page: PageInput) {
  const limit = page.limit ?? 50;
  const after = page.cursor ? decodeCursor(page.cursor, 'cursor') : null;
  const [rows, reference] = await Promise.all([withdrawalsPage(deps.db, filter, limit + 1, after), deps.refdata.current()]);
  return pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => withdrawalView(r, reference));
}

/** Another account's withdrawal reads as NOT_FOUND (existence is not revealed). */
export async function getWithdrawal(deps: ServiceDeps, accountId: string, withdrawalId: string) {
  const [row, reference] = await Promise.all([
    accountWithdrawal(deps.db, accountId, withdrawalId),
    deps.refdata.current(),
  ]);
  if (!row) throw new ServiceError('NOT_FOUND', `no withdrawal ${withdrawalId}`);
  return withdrawalView(row, reference);
}
