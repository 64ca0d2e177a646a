/**
 * The custody broadcaster's use cases: each moves one transfer along its state machine
 * (src/domain/funds/custody-transfer-state.ts) through its one status writer, and applies the
 * outcome to the transfer's owner in the same transaction (custody-outcomes.ts). The broadcaster
 * (src/chain/custody/custody-broadcaster.ts) talks to the chain and signs; it writes no row itself.
 */
import { custodyTransferTransition, decideCustodyTransfer } from '../../domain/funds/custody-transfer-state.ts';
import { writeCustodyTransferStatus, writeCustodyTransferStatusIfStill } from '../../store/custody-transfer-status.ts';
import { insertTransferAttempt, lockedNextNonce, markSentTransferEscalated, noteTransferLastError, setNextNonce, type AttemptRow } from '../../store/custody-transfer-rows.ts';
import { ONE_MORE_SEND } from '../../store/status-change.ts';
import { inTransaction } from '../../store/outbox.ts';
import type { Reader, Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { applyCustodyOutcome, endingEvent, type EndingOutcome } from './custody-outcomes.ts';
import type { CustodyTransferRow } from './custody-transfers.ts';

/** One signed transaction of a transfer, persisted before it is sent. */
export type SignedAttempt = AttemptRow;

/**
 * The nonce the next transfer from `address` signs with, under the allocator's row lock (held
 * until `recordTransferSigned` moves it on in the same transaction). The allocator starts at the
 * node's pending count; nonces below the mined count were used by someone else: never signed into.
 */
export async function claimCustodyNonce(tx: Tx, address: string, counts: { pendingCount: number; minedCount: number }): Promise<number> {
  return Math.max(await lockedNextNonce(tx, address, counts.pendingCount), counts.minedCount);
}

/**
 * QUEUED -> SIGNED, under the transfer's row lock: custody's nonce allocator moved past the
 * transfer's nonce, the original transaction (attempt 0) and the transfer's nonce and bytes
 * persisted, and the owner told (a withdrawal becomes PROCESSING).
 */
export async function recordTransferSigned(tx: Tx, deps: ServiceDeps, row: CustodyTransferRow, signed: Omit<SignedAttempt, 'attempt' | 'kind'> & { fromAddress: string }, now: number): Promise<void> {
  await setNextNonce(tx, signed.fromAddress, signed.nonce + 1);
  await insertTransferAttempt(tx, row.id, { ...signed, attempt: 0, kind: 'original' }, now);
  const updated = await writeCustodyTransferStatus(tx, {
    id: row.id,
    from: row.status,
    to: decideCustodyTransfer(row.status, 'sign'),
    fields: { from_address: signed.fromAddress, nonce: signed.nonce, raw_tx: signed.rawTx, tx_hash: signed.txHash, signed_at: now },
  }, now);
  await applyCustodyOutcome(tx, deps, updated, { kind: 'signed' }, now);
}

/** QUEUED -> EXPIRED, under the transfer's row lock: a call whose deadline passed before its turn, never signed. */
export async function expireQueuedTransfer(tx: Tx, deps: ServiceDeps, row: CustodyTransferRow, reason: string, now: number): Promise<void> {
  const updated = await writeCustodyTransferStatus(tx, { id: row.id, from: row.status, to: decideCustodyTransfer(row.status, 'expire'), fields: { last_error: reason } }, now);
  await applyCustodyOutcome(tx, deps, updated, { kind: 'expired', reason }, now);
}

/**
 * SIGNED | SENT -> SIGNED, under the transfer's row lock: a replacement (fee bump or zero-value
 * cancel) at the same nonce, persisted as the transfer's latest bytes for the send phase.
 */
export async function recordTransferReplaced(tx: Tx, row: CustodyTransferRow, signed: SignedAttempt, now: number): Promise<void> {
  await insertTransferAttempt(tx, row.id, signed, now);
  await writeCustodyTransferStatus(tx, { id: row.id, from: row.status, to: decideCustodyTransfer(row.status, 'replace'), fields: { raw_tx: signed.rawTx, tx_hash: signed.txHash, last_error: null } }, now);
}

/** SIGNED | SENT -> SENT once the latest bytes were handed to the node (`error`: what it answered, if not the hash); a row that moved on is left. */
export async function recordTransferSent(db: Reader, transferId: string, error: string | null, now: number): Promise<void> {
  await writeCustodyTransferStatusIfStill(db, { id: transferId, ...custodyTransferTransition('send'), fields: { send_attempts: ONE_MORE_SEND, last_sent_at: now, last_error: error } }, now);
}

/**
 * SENT -> the outcome's status, with the owner's outcome applied in the same transaction; false
 * when the transfer is no longer SENT (another node ended it first).
 */
export async function endSentTransfer(deps: ServiceDeps, row: CustodyTransferRow, outcome: EndingOutcome, minedHash: string | null): Promise<boolean> {
  return inTransaction(deps.db, async (tx) => {
    const now = deps.clock.now();
    const updated = await writeCustodyTransferStatusIfStill(tx, {
      id: row.id,
      ...custodyTransferTransition(endingEvent(outcome)),
      fields: {
        tx_hash: minedHash ?? undefined,
        confirmed_block: 'blockNumber' in outcome ? outcome.blockNumber : null,
        last_error: 'reason' in outcome ? outcome.reason : row.last_error,
      },
    }, now);
    if (!updated) return false;
    await applyCustodyOutcome(tx, deps, updated, outcome, now);
    return true;
  });
}

/**
 * Hands a SENT transfer past the broadcaster's bounds to the operator, once (it stays SENT and
 * watched); false when it was escalated already or is no longer SENT.
 */
export async function escalateSentTransfer(deps: ServiceDeps, row: CustodyTransferRow, reason: string): Promise<boolean> {
  return inTransaction(deps.db, async (tx) => {
    const now = deps.clock.now();
    const updated = await markSentTransferEscalated(tx, row.id, reason, now);
    if (!updated) return false;
    await applyCustodyOutcome(tx, deps, updated, { kind: 'stuck', reason }, now);
    return true;
  });
}

/** Notes why a transfer cannot be replaced now (its status unchanged); a repeat of the same reason writes nothing. */
export async function noteTransferError(db: Reader, transferId: string, reason: string, now: number): Promise<void> {
  await noteTransferLastError(db, transferId, reason, now);
}
