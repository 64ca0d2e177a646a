/**
 * Custody transfers' rows other than their status (which only `custody-transfer-status.ts`
 * writes): the signed attempts kept before each send, the per-address nonce allocator, the
 * operator's escalation mark and the last error noted.
 */
import type { Selectable } from 'kysely';
import type { CustodyTransfersTable } from './schema.ts';
import type { Reader, Tx } from './transaction.ts';

export interface AttemptRow {
  attempt: number;
  kind: 'original' | 'replacement' | 'cancel';
  nonce: number;
  rawTx: string;
  txHash: string;
}

export async function insertTransferAttempt(tx: Tx, transferId: string, signed: AttemptRow, now: number): Promise<void> {
  await tx.insertInto('custody_tx_attempts').values({ transfer_id: transferId, attempt: signed.attempt, kind: signed.kind, nonce: signed.nonce, raw_tx: signed.rawTx, tx_hash: signed.txHash, signed_at: now }).execute();
}

/** The allocator's next nonce for `address` (created at `start` when new), its row locked until the transaction ends. */
export async function lockedNextNonce(tx: Tx, address: string, start: number): Promise<number> {
  await tx.insertInto('custody_nonces').values({ address, next_nonce: start }).onConflict((oc) => oc.column('address').doNothing()).execute();
  return (await tx.selectFrom('custody_nonces').select('next_nonce').where('address', '=', address).forUpdate().executeTakeFirstOrThrow()).next_nonce;
}

export async function setNextNonce(tx: Tx, address: string, next: number): Promise<void> {
  await tx.updateTable('custody_nonces').set({ next_nonce: next }).where('address', '=', address).execute();
}

/** Marks a SENT transfer escalated, once; undefined when it was already or is no longer SENT. */
export async function markSentTransferEscalated(tx: Tx, transferId: string, reason: string, now: number): Promise<Selectable<CustodyTransfersTable> | undefined> {
  return tx
    .updateTable('custody_transfers')
    .set({ escalated_at: now, last_error: reason, updated_at: now })
    .where('id', '=', transferId)
    .where('status', '=', 'SENT')
    .where('escalated_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Notes the transfer's last error; a repeat of the same reason writes nothing. */
export async function noteTransferLastError(db: Reader, transferId: string, reason: string, now: number): Promise<void> {
  await db.updateTable('custody_transfers').set({ last_error: reason, updated_at: now }).where('id', '=', transferId).where('last_error', 'is distinct from', reason).execute();
}

/** The ids of the custody transfers paying out a withdrawal. */
export async function withdrawalTransferIds(db: Reader, withdrawalId: string): Promise<string[]> {
  return (await db.selectFrom('custody_transfers').select('id').where('purpose', '=', 'withdrawal').where('owner_id', '=', withdrawalId).execute()).map((t) => t.id);
}
