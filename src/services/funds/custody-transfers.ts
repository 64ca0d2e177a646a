/**
 * The custody broadcaster's queue in the store (migrations 0013, 0016). Every transaction custody
 * sends is one row, so custody's nonces come from one place: an ERC-20 transfer out of custody
 * (a withdrawal or a promised payout) or a contract call (`xchange` execution of a selected
 * bundle, `approval` of the xchange adapter for a token). Use cases enqueue it inside their
 * own transaction; the broadcaster (src/chain/custody/custody-broadcaster.ts) signs, sends and
 * confirms it; its outcome is applied by the owner's use case (withdrawal or payout), in the same
 * transaction that ends the transfer, so the ledger moves exactly once.
 *
 * Statuses: QUEUED (nothing signed) -> SIGNED (nonce, raw transaction and hash persisted) -> SENT
 * (handed to the node at least once) -> CONFIRMED | REVERTED | UNRESOLVED (its nonce was used by a
 * transaction that is none of ours) | CANCELLED (the operator's zero-value cancel was mined at its
 * nonce: nothing was paid). A SENT transfer may have several signed transactions at its nonce
 * (`custody_tx_attempts`: fee bumps, a cancel); any of them may be the one mined.
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

export interface EnqueueCall {
  purpose: 'xchange' | 'approval';
  ownerId: string;
  /** What custody gives in the call (xchange: its outgoing leg; approval: the token, amount 0). */
  token: string;
  tokenAddress: string;
  amount: bigint;
  /** The contract called. */
  toAddress: string;
  callData: string;
  gas: number;
}

export async function enqueueCustodyTransfer(tx: Tx, deps: ServiceDeps, transfer: EnqueueTransfer, now: number): Promise<string> {
  return (await insertRow(tx, deps, { ...transfer, callData: null, gas: null }, now, false))!;
}

/** Enqueues a call unless one for the same owner is still open; returns its id, or null if one was. */
export async function enqueueCustodyCall(tx: Tx, deps: ServiceDeps, call: EnqueueCall, now: number): Promise<string | null> {
  // The partial unique index of open calls (0016) makes "unless one is open" race-free.
  return insertRow(tx, deps, call, now, true);
}

async function insertRow(
  tx: Tx,
  deps: ServiceDeps,
  row: Omit<EnqueueTransfer, 'purpose'> & { purpose: CustodyTransferPurpose; callData: string | null; gas: number | null },
  now: number,
  unlessOpen: boolean,
): Promise<string | null> {
  const id = deps.ids.uuid();
  const inserted = await tx
    .insertInto('custody_transfers')
    .values({
      id,
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
      created_at: now,
      updated_at: now,
    })
    .$if(unlessOpen, (q) => q.onConflict((oc) => oc.doNothing()))
    .returning('id')
    .executeTakeFirst();
  return inserted?.id ?? null;
}
