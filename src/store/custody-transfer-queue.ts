/**
 * The custody broadcaster's queue rows as the use cases touch them: a transfer or call enqueued in
 * its first status (QUEUED), the row lock an operator's decision takes, and the operator's cancel
 * request. Status changes are written only by `custody-transfer-status.ts`.
 */
import type { Selectable } from 'kysely';
import type { CustodyTransfersTable } from './schema.ts';
import type { Tx } from './transaction.ts';

type CustodyTransferRow = Selectable<CustodyTransfersTable>;

export interface QueuedCustodyTransfer {
  id: string;
  purpose: CustodyTransfersTable['purpose'];
  ownerId: string;
  token: string;
  tokenAddress: string;
  toAddress: string;
  amount: bigint;
  /** Calls only: the calldata and gas limit; null for an ERC-20 transfer. */
  callData: string | null;
  gas: number | null;
  notAfterSecs: number | null;
}

/**
 * Inserts the row QUEUED, nothing signed yet. With `unlessOpen`, a row the partial unique indexes
 * refuse (an open call of the owner, migration 0016; a live payout of the quote, migration 0047)
 * inserts nothing and null is returned; otherwise the id.
 */
export async function insertQueuedCustodyTransfer(tx: Tx, row: QueuedCustodyTransfer, now: number, unlessOpen: boolean): Promise<string | null> {
  const inserted = await tx
    .insertInto('custody_transfers')
    .values({
      id: row.id,
      purpose: row.purpose,
      owner_id: row.ownerId,
      token: row.token,
      token_address: row.tokenAddress,
      to_address: row.toAddress,
      amount: row.amount,
      status: 'QUEUED',
      from_address: null,
      nonce: null,
      raw_tx: null,
      tx_hash: null,
      send_attempts: 0,
      signed_at: null,
      last_sent_at: null,
      confirmed_block: null,
      last_error: null,
      call_data: row.callData,
      gas: row.gas,
      cancel_requested_at: null,
      escalated_at: null,
      not_after_secs: row.notAfterSecs,
      created_at: now,
      updated_at: now,
    })
    .$if(unlessOpen, (q) => q.onConflict((oc) => oc.doNothing()))
    .returning('id')
    .executeTakeFirst();
  return inserted?.id ?? null;
}

/** The transfer, its row locked until the transaction ends; undefined when there is none. */
export async function lockCustodyTransfer(tx: Tx, transferId: string): Promise<CustodyTransferRow | undefined> {
  return tx.selectFrom('custody_transfers').selectAll().where('id', '=', transferId).forUpdate().executeTakeFirst();
}

/** The quote's latest payout transfer (by created_at, then id), its row locked; undefined when it has none. */
export async function lockLatestPayoutOfQuote(tx: Tx, quoteId: string): Promise<CustodyTransferRow | undefined> {
  return tx.selectFrom('custody_transfers').selectAll().where('purpose', '=', 'payout').where('owner_id', '=', quoteId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).forUpdate().executeTakeFirst();
}

/** Notes the operator's cancel request on the transfer (the broadcaster sends the cancel); returns the row as written. */
export async function markCancelRequested(tx: Tx, transferId: string, now: number): Promise<CustodyTransferRow> {
  return tx.updateTable('custody_transfers').set({ cancel_requested_at: now, updated_at: now }).where('id', '=', transferId).returningAll().executeTakeFirstOrThrow();
}
