/**
 * The `/v1` deposits' rows (migration 0012), one per (tx_hash, log_index): recorded PENDING at the
 * head, completed (or inserted completed) once final, failed when the final chain lost them, and
 * the account's and the operator's pages. The status each write carries is decided by the deposit
 * state machine (src/domain/funds/deposit-state.ts).
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { DepositsTable } from './schema.ts';
import type { Reader, Tx } from './transaction.ts';

type DepositRow = Selectable<DepositsTable>;

/** Inserts the deposit unless its log is already known; false when it was. */
export async function insertDepositUnlessKnown(tx: Tx, row: Insertable<DepositsTable>): Promise<boolean> {
  const inserted = await tx.insertInto('deposits').values(row).onConflict((oc) => oc.columns(['tx_hash', 'log_index']).doNothing()).returning('id').executeTakeFirst();
  return inserted !== undefined;
}

export async function insertDeposit(tx: Tx, row: Insertable<DepositsTable>): Promise<void> {
  await tx.insertInto('deposits').values(row).execute();
}

/** The deposit of one log, its row locked until the transaction ends; undefined when unknown. */
export async function lockDepositOfLog(tx: Tx, txHash: string, logIndex: number): Promise<DepositRow | undefined> {
  return tx.selectFrom('deposits').selectAll().where('tx_hash', '=', txHash).where('log_index', '=', logIndex).forUpdate().executeTakeFirst();
}

export async function updateDeposit(tx: Tx, depositId: string, values: Updateable<DepositsTable>): Promise<void> {
  await tx.updateTable('deposits').set(values).where('id', '=', depositId).execute();
}

/** The PENDING deposits in blocks [fromBlock, toBlock], their rows locked. */
export async function lockPendingDepositsInBlocks(tx: Tx, range: { fromBlock: number; toBlock: number }) {
  return tx
    .selectFrom('deposits')
    .select(['id', 'status', 'tx_hash', 'log_index'])
    .where('status', '=', 'PENDING')
    .where('block_number', '>=', range.fromBlock)
    .where('block_number', '<=', range.toBlock)
    .forUpdate()
    .execute();
}

/**
 * Up to `limit` deposits before `after` (null: from the newest), newest first by (created_at, id):
 * the account's, or with `accountId` null the unattributed ones.
 */
export async function depositsPage(db: Reader, accountId: string | null, limit: number, after: { at: number; id: string } | null): Promise<DepositRow[]> {
  let query = db.selectFrom('deposits').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit);
  query = accountId ? query.where('account_id', '=', accountId) : query.where('account_id', 'is', null);
  if (after) query = query.where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]));
  return query.execute();
}
