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
 * nonce: nothing was paid; the broadcaster also cancels a call unmined past its deadline) | EXPIRED
 * (a call whose deadline passed while it was queued: never signed, migration 0046). A SENT transfer may have several signed transactions at its nonce
 * (`custody_tx_attempts`: fee bumps, a cancel); any of them may be the one mined.
 */
import type { Selectable } from 'kysely';
import { insertQueuedCustodyTransfer } from '../../store/custody-transfer-queue.ts';
import type { CustodyTransfersTable } from '../../store/schema.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';

export type CustodyTransferRow = Selectable<CustodyTransfersTable>;
export type CustodyTransferPurpose = CustodyTransferRow['purpose'];

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
  /** The last unix second the call can succeed on-chain (xchange: the swap's expiration); never signed after it. */
  notAfterSecs?: number;
}

export async function enqueueCustodyTransfer(tx: Tx, deps: ServiceDeps, transfer: EnqueueTransfer, now: number): Promise<string> {
  return (await insertRow(tx, deps, { ...transfer, callData: null, gas: null, notAfterSecs: null }, now, false))!;
}

/** Enqueues a payout again (the operator's retry of an unpaid one); null if a live payout of the quote exists (migration 0047). */
export async function enqueuePayoutRetry(tx: Tx, deps: ServiceDeps, transfer: Omit<EnqueueTransfer, 'purpose'>, now: number): Promise<string | null> {
  return insertRow(tx, deps, { ...transfer, purpose: 'payout', callData: null, gas: null, notAfterSecs: null }, now, true);
}

/** Enqueues a call unless one for the same owner is still open; returns its id, or null if one was. */
export async function enqueueCustodyCall(tx: Tx, deps: ServiceDeps, call: EnqueueCall, now: number): Promise<string | null> {
  // The partial unique index of open calls (0016) makes "unless one is open" race-free.
  return insertRow(tx, deps, { ...call, notAfterSecs: call.notAfterSecs ?? null }, now, true);
}

async function insertRow(
  tx: Tx,
  deps: ServiceDeps,
  row: Omit<EnqueueTransfer, 'purpose'> & { purpose: CustodyTransferPurpose; callData: string | null; gas: number | null; notAfterSecs: number | null },
  now: number,
  unlessOpen: boolean,
): Promise<string | null> {
  return insertQueuedCustodyTransfer(tx, { id: deps.ids.uuid(), ...row }, now, unlessOpen);
}
