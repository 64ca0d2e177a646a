/**
 * The operator's reads of custody transfers: one by id, a page by status and purpose, the payouts
 * still owed, each transfer's signed attempts, and the withdrawal's transfer a resolve is checked
 * against on-chain.
 */
import type { Selectable } from 'kysely';
import type { CustodyTransferStatus } from '../domain/funds/custody-transfer-state.ts';
import type { CustodyTransfersTable, CustodyTxAttemptsTable } from './schema.ts';
import type { Reader } from './transaction.ts';

type CustodyTransferRow = Selectable<CustodyTransfersTable>;

export async function custodyTransferById(db: Reader, transferId: string): Promise<CustodyTransferRow> {
  return db.selectFrom('custody_transfers').selectAll().where('id', '=', transferId).executeTakeFirstOrThrow();
}

/**
 * Up to `limit` transfers before `after` (null: from the newest), newest first by (created_at, id),
 * in one status and/or of one purpose when those are given.
 */
export async function custodyTransfersPage(
  db: Reader,
  filter: { status?: CustodyTransferStatus | undefined; purpose?: string | undefined },
  limit: number,
  after: { at: number; id: string } | null,
): Promise<CustodyTransferRow[]> {
  let query = db.selectFrom('custody_transfers').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.purpose) query = query.where('purpose', '=', filter.purpose as never);
  if (after) query = query.where((eb) => eb.or([eb('created_at', '<', after.at), eb.and([eb('created_at', '=', after.at), eb('id', '<', after.id)])]));
  return query.execute();
}

/**
 * The latest payout transfer of each quote whose payouts all ended in one of `unpaid`: no payout
 * of the quote is in one of `live`, nor newer. Oldest first, at most `limit`.
 */
export async function unpaidPayoutTransfers(db: Reader, unpaid: readonly CustodyTransferStatus[], live: readonly CustodyTransferStatus[], limit: number): Promise<CustodyTransferRow[]> {
  return db
    .selectFrom('custody_transfers as t')
    .selectAll('t')
    .where('t.purpose', '=', 'payout')
    .where('t.status', 'in', unpaid)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('custody_transfers as o').select('o.id').whereRef('o.owner_id', '=', 't.owner_id').where('o.purpose', '=', 'payout').where((eb) => eb.or([eb('o.status', 'in', live), eb('o.created_at', '>', eb.ref('t.created_at'))])))),
    )
    .orderBy('t.created_at')
    .orderBy('t.id')
    .limit(limit)
    .execute();
}

/** The signed attempts of the transfers, in attempt order; none for no transfers. */
export async function attemptsOfTransfers(db: Reader, transferIds: readonly string[]): Promise<Array<Selectable<CustodyTxAttemptsTable>>> {
  if (transferIds.length === 0) return [];
  return db.selectFrom('custody_tx_attempts').selectAll().where('transfer_id', 'in', [...transferIds]).orderBy('attempt').execute();
}

/** The withdrawal's custody transfer with its nonce (null while nothing was signed); undefined when none was queued. */
export async function withdrawalTransferNonce(db: Reader, withdrawalId: string): Promise<{ id: string; nonce: number | null } | undefined> {
  return db.selectFrom('custody_transfers').select(['id', 'nonce']).where('purpose', '=', 'withdrawal').where('owner_id', '=', withdrawalId).executeTakeFirst();
}
