/**
 * `/v0` withdrawal rows beside their state (which only src/store/v0-withdrawal-status.ts writes):
 * a request's row, the account's pending one, the pending one a venue transfer completes, and the
 * reads of an account's own and of every account's for the operator.
 */
import type { Insertable } from 'kysely';
import type { V0WithdrawalState } from '../domain/v0/withdrawal-status.ts';
import type { V0WithdrawalsTable } from './schema.ts';
import { newestFirst, type PageCursor } from './newest-first.ts';
import type { Reader, Tx } from './transaction.ts';

/** The id of the account's pending withdrawal, if it has one (at most one at a time). */
export async function pendingV0WithdrawalOf(tx: Tx, accountId: string): Promise<string | undefined> {
  return (await tx.selectFrom('v0_withdrawals').select('id').where('account_id', '=', accountId).where('state', '=', 'pending').executeTakeFirst())?.id;
}

export async function insertV0Withdrawal(tx: Tx, row: Insertable<V0WithdrawalsTable>): Promise<void> {
  await tx.insertInto('v0_withdrawals').values(row).execute();
}

/**
 * The oldest pending withdrawal a venue transfer of `amount` of `token` to `destination` pays,
 * locked until the transaction ends; undefined when none matches.
 */
export async function lockPendingV0WithdrawalPaidBy(tx: Tx, transfer: { destination: string; token: string; amount: bigint }) {
  return tx
    .selectFrom('v0_withdrawals')
    .selectAll()
    .where('to_address', '=', transfer.destination)
    .where('token', '=', transfer.token)
    .where('amount', '=', transfer.amount)
    .where('state', '=', 'pending')
    .orderBy('created_at')
    .forUpdate()
    .executeTakeFirst();
}

/** The account's withdrawal `id`; undefined when it is not one of the account's. */
export async function v0WithdrawalOfAccount(db: Reader, accountId: string, id: string) {
  return db.selectFrom('v0_withdrawals').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** The account's latest 100 withdrawals, newest first. */
export async function latestV0WithdrawalsOfAccount(db: Reader, accountId: string) {
  return db.selectFrom('v0_withdrawals').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(100).execute();
}

/** A page of every account's withdrawals with the owner's address and the token's decimals, newest first (`limit` rows at most). */
export async function v0WithdrawalsWithOwners(db: Reader, filter: { state?: V0WithdrawalState | undefined; address?: string | undefined; before?: PageCursor | undefined }, limit: number) {
  let query = db
    .selectFrom('v0_withdrawals')
    .innerJoin('accounts', 'accounts.id', 'v0_withdrawals.account_id')
    .innerJoin('tokens', 'tokens.symbol', 'v0_withdrawals.token')
    .selectAll('v0_withdrawals')
    .select(['accounts.address as account_address', 'tokens.decimals']);
  if (filter.state) query = query.where('v0_withdrawals.state', '=', filter.state);
  if (filter.address) query = query.where('accounts.address', '=', filter.address);
  return newestFirst(query, { at: 'v0_withdrawals.created_at', id: 'v0_withdrawals.id' }, filter.before, limit).execute();
}
