/**
 * Operator decisions on a withdrawal (DESIGN.md section 6): approve (queues the custody transfer
 * for the broadcaster), reject (FAILED, lock released) and resolve an UNRESOLVED one.
 * Approve/reject of one that is not PENDING is 409 WITHDRAWAL_NOT_PENDING; resolve of one that is
 * not UNRESOLVED is 409 WITHDRAWAL_NOT_UNRESOLVED.
 */
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { custodyTransferTransition } from '../../domain/funds/custody-transfer-state.ts';
import { writeCustodyTransferStatusIfStill } from '../../store/custody-transfer-status.ts';
import { attemptsOfTransfers, withdrawalTransferNonce } from '../../store/custody-transfer-reads.ts';
import { withdrawalTransferIds } from '../../store/custody-transfer-rows.ts';
import { inTransaction } from '../../store/outbox.ts';
import type { ServiceDeps } from '../deps.ts';
import { enqueueCustodyTransfer } from './custody-transfers.ts';
import { applyWithdrawalEvent, lockWithdrawal } from './withdrawal-outcomes.ts';
import { withdrawalView } from './withdrawal-views.ts';

export async function approveWithdrawal(deps: ServiceDeps, withdrawalId: string) {
  const now = deps.clock.now();
  const reference = await deps.refdata.current();
  const updated = await inTransaction(deps.db, async (tx) => {
    const row = await lockWithdrawal(tx, withdrawalId);
    const approved = await applyWithdrawalEvent(tx, deps, row, 'approve', {}, now);
    const tokenAddress = reference.tokens.get(row.token)?.address;
    if (!tokenAddress) throw new ServiceError('TOKEN_NOT_ON_CHAIN', `token ${row.token} has no on-chain address`);
    await enqueueCustodyTransfer(tx, deps, { purpose: 'withdrawal', ownerId: row.id, token: row.token, tokenAddress, toAddress: row.to_address, amount: row.amount }, now);
    return approved;
  });
  return withdrawalView(updated, reference);
}

export async function rejectWithdrawal(deps: ServiceDeps, withdrawalId: string, reason: string | undefined) {
  const now = deps.clock.now();
  const reference = await deps.refdata.current();
  const updated = await inTransaction(deps.db, async (tx) => {
    const row = await lockWithdrawal(tx, withdrawalId);
    return applyWithdrawalEvent(tx, deps, row, 'reject', { failureReason: reason ?? 'rejected by the operator' }, now);
  });
  return withdrawalView(updated, reference);
}

/**
 * Settles an UNRESOLVED withdrawal as the operator found it on-chain. The custody transfer is
 * closed with the same outcome so the custody check stops counting it as in flight.
 *
 * The decision is checked against the chain first, so it can never pay twice: while custody's
 * nonce of the transfer is unused, any transaction signed for it (the original or a fee bump) may
 * still be mined, so either outcome is refused (409 CUSTODY_TX_MINEABLE: cancel it first); FAILED
 * is refused when one of them was mined and succeeded (409 CUSTODY_TX_PAID). The nonce can only
 * be consumed once, so nothing read here can be undone before the transaction commits (short of
 * a reorganisation deeper than the confirmation depth).
 */
export async function resolveWithdrawal(deps: ServiceDeps, withdrawalId: string, input: { outcome: 'COMPLETED' | 'FAILED'; txHash?: string | undefined }) {
  if (input.outcome === 'FAILED' && input.txHash) throw invalidField('txHash', 'unexpected', 'txHash only goes with outcome COMPLETED');
  const now = deps.clock.now();
  const reference = await deps.refdata.current();
  await checkAgainstChain(deps, withdrawalId, input.outcome);
  const updated = await inTransaction(deps.db, async (tx) => {
    const row = await lockWithdrawal(tx, withdrawalId);
    const completed = input.outcome === 'COMPLETED';
    const resolved = await applyWithdrawalEvent(
      tx,
      deps,
      row,
      completed ? 'resolveCompleted' : 'resolveFailed',
      completed ? { txHash: input.txHash ?? row.tx_hash } : { failureReason: 'resolved as failed by the operator' },
      now,
    );
    // A cancelled transfer stays CANCELLED (that is what happened on-chain); a SENT one whose
    // nonce is used but not yet booked by the broadcaster is closed here instead.
    const transition = custodyTransferTransition(completed ? 'resolveCompleted' : 'resolveFailed');
    for (const transferId of await withdrawalTransferIds(tx, row.id)) {
      await writeCustodyTransferStatusIfStill(tx, { id: transferId, ...transition, fields: { last_error: `resolved ${input.outcome} by the operator` } }, now);
    }
    return resolved;
  });
  return withdrawalView(updated, reference);
}

async function checkAgainstChain(deps: ServiceDeps, withdrawalId: string, outcome: 'COMPLETED' | 'FAILED'): Promise<void> {
  const transfer = await withdrawalTransferNonce(deps.db, withdrawalId);
  if (!transfer || transfer.nonce === null) return; // nothing was ever signed for it
  const attempts = await attemptsOfTransfers(deps.db, [transfer.id]);
  const chain = deps.custodyChain;
  if (!chain) throw new ServiceError('CUSTODY_CHAIN_UNAVAILABLE', 'this node has no chain connection to check the decision against');
  let mined: { txHash: string; status: 'success' | 'reverted' } | null = null;
  try {
    if ((await chain.minedNonceCount()) <= transfer.nonce) {
      throw new ServiceError('CUSTODY_TX_MINEABLE', `custody nonce ${transfer.nonce} is unused: its signed transactions can still be mined; cancel it first (POST /admin/v1/custody/transfers/${transfer.id}/cancel)`, {
        transferId: transfer.id,
        nonce: transfer.nonce,
        txHashes: attempts.map((a) => a.tx_hash),
      });
    }
    for (const attempt of attempts) {
      if (attempt.kind === 'cancel') continue;
      const status = await chain.receiptStatus(attempt.tx_hash);
      if (status) mined = { txHash: attempt.tx_hash, status };
    }
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw new ServiceError('CUSTODY_CHAIN_UNAVAILABLE', `reading the chain failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  if (outcome === 'FAILED' && mined?.status === 'success') {
    throw new ServiceError('CUSTODY_TX_PAID', `transaction ${mined.txHash} was mined and paid this withdrawal; resolve it COMPLETED`, { transferId: transfer.id, txHash: mined.txHash });
  }
}
