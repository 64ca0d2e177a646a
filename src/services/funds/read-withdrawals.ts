/** Withdrawal reads: the account's own (page, one by id) and the operator's list by status. */
import { ServiceError } from '../../domain/errors.ts';
import type { WithdrawalStatus } from '../../domain/funds/withdrawal-state.ts';
import type { ServiceDeps } from '../deps.ts';
import { decodeCursor, pageOf } from '../paging.ts';
import { withdrawalView } from './withdrawal-views.ts';

interface PageInput { limit?: number | undefined; cursor?: string | undefined }

export async function listWithdrawals(deps: ServiceDeps, filter: { accountId?: string; status?: WithdrawalStatus | undefined }, page: PageInput) {
  const limit = page.limit ?? 50;
  const after = page.cursor ? decodeCursor(page.cursor, 'cursor') : null;
  let query = deps.db.selectFrom('withdrawals').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1);
  if (filter.accountId) query = query.where('account_id', '=', filter.accountId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (after) query = query.where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]));
  const [rows, reference] = await Promise.all([query.execute(), deps.refdata.current()]);
  return pageOf(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => withdrawalView(r, reference));
}

/** Another account's withdrawal reads as NOT_FOUND (existence is not revealed). */
export async function getWithdrawal(deps: ServiceDeps, accountId: string, withdrawalId: string) {
  const [row, reference] = await Promise.all([
    deps.db.selectFrom('withdrawals').selectAll().where('id', '=', withdrawalId).where('account_id', '=', accountId).executeTakeFirst(),
    deps.refdata.current(),
  ]);
  if (!row) throw new ServiceError('NOT_FOUND', `no withdrawal ${withdrawalId}`);
  return withdrawalView(row, reference);
}
