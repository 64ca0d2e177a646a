/**
 * The custody broadcaster's queue in the store (migration 0013). A custody transfer is one ERC-20
 * transfer out of custody: a withdrawal or a promised payout. Use cases enqueue it inside their
 * own transaction; the broadcaster (src/chain/custody/custody-broadcaster.ts) signs, sends and
 * confirms it; its outcome is applied by the owner's use case (withdrawal or payout), in the same
 * transaction that ends the transfer, so the ledger moves exactly once.
 *
 * Statuses: QUEUED (nothing signed) -> SIGNED (nonce, raw transaction and hash persisted) -> SENT
 * (handed to the node at least once) -> CONFIRMED | REVERTED | UNRESOLVED.
 */
import type { Selectable } from 'kysely';
import type { CustodyTransfersTable } from '../../store/schema.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';

export type CustodyTransferRow = Selectable<CustodyTransfersTable>;
export type CustodyTransferPurpose = CustodyTransferRow['purpose'];
/** Statuses in which the transaction may be on-chain without being booked yet. */
export const IN_FLIGHT_STATUSES = ['SIGNED', 'SENT'] as const;

export interface EnqueueTransfer {
  purpose: CustodyTransferPurpose;
  ownerId: string;
  token: string;
  tokenAddress: string;
  toAddress: string;
  amount: bigint;
}

export async function enqueueCustodyTransfer(tx: Tx, deps: ServiceDeps, transfer: EnqueueTransfer, now: number): Promise<string> {
  const id = deps.ids.uuid();
  await tx
    .insertInto('custody_transfers')
    .values({
      id,
      purpose: transfer.purpose,
      owner_id: transfer.ownerId,
      token: transfer.token,
      token_address: transfer.tokenAddress,
      to_address: transfer.toAddress,
      amount: transfer.amount,
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
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}
