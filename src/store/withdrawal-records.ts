/**
 * The `/v1` withdrawals' rows (migration 0013): the account's page and one by id, the operator's
 * list by status, and the row lock and status write of a transition the use case decided with
 * the withdrawal state machine (src/domain/funds/withdrawal-state.ts). The request's insert is the
 * idempotent one (idempotent-insert.ts).
 */
import type { Selectable } from 'kysely';
import type { WithdrawalStatus } from '../domain/funds/withdrawal-state.ts';
import type { WithdrawalsTable } from './schema.ts';
import type { Reader, Tx } from './transaction.ts';

type WithdrawalRow = Selectable<WithdrawalsTable>;

/** The withdrawal, its row locked until the transaction ends; undefined when there is none. */
export async function lockWithdrawalRow(tx: Tx, withdrawalId: string): Promise<WithdrawalRow | undefined> {
  return tx.selectFrom('withdrawals').selectAll().where('id', '=', withdrawalId).forUpdate().executeTakeFirst();
}

/**
 * Writes a transition decided from `from` (with the tx hash or failure reason when given) and
 * returns the row as written; throws when the row is no longer in `from`.
 */
export async function writeWithdrawalTransition(
  tx: Tx,
  change: { id: string; from: WithdrawalStatus; to: WithdrawalStatus; txHash?: string | null | undefined; failureReason?: string | null | undefined },
  now: number,
): Promise<WithdrawalRow> {
  return tx
    .updateTable('withdrawals')
    .set({
      status: change.to,
      updated_at: now,
      ...(change.txHash !== undefined ? { tx_hash: change.txHash } : {}),
      ...(change.failureReason !== undefined ? { failure_reason: change.failureReason } : {}),
    })
    .where('id', '=', change.id)
    .where('status', '=', change.from)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Up to `limit` withdrawals before `after` (null: from the newest), newest first by
 * (created_at, id), of one account and/or in one status when those are given.
 */
export async function withdrawalsPage(db: Reader, filter: { accountId?: string | undefined; status?: WithdrawalStatus | undefined }, limit: number, after: { at: number; id: string } | null): Promise<WithdrawalRow[]> {
  let query = db.selectFrom('withdrawals').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit);
  if (filter.accountId) query = query.where('account_id', '=', filter.accountId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (after) query = query.where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]));
  return query.execute();
}

/** The account's own withdrawal; undefined when it has none of that id. */
export async function accountWithdrawal(db: Reader, accountId: string, withdrawalId: string): Promise<WithdrawalRow | undefined> {
  return db.selectFrom('withdrawals').selectAll().where('id', '=', withdrawalId).where('account_id', '=', accountId).executeTakeFirst();
}
