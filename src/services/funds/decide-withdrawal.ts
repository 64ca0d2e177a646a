/**
 * Operator decisions on a withdrawal (DESIGN.md section 6): approve (queues the custody transfer
 * for the broadcaster), reject (FAILED, lock released) and resolve an UNRESOLVED one.
 * Approve/reject of one that is not PENDING is 409 WITHDRAWAL_NOT_PENDING; resolve of one that is
 * not UNRESOLVED is 409 WITHDRAWAL_NOT_UNRESOLVED.
 */
import { ServiceError, invalidField } from '../../domain/errors.ts';
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
 */
export async function resolveWithdrawal(deps: ServiceDeps, withdrawalId: string, input: { outcome: 'COMPLETED' | 'FAILED'; txHash?: string | undefined }) {
  if (input.outcome === 'FAILED' && input.txHash) throw invalidField('txHash', 'unexpected', 'txHash only goes with outcome COMPLETED');
  const now = deps.clock.now();
  const reference = await deps.refdata.current();
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
    await tx
      .updateTable('custody_transfers')
      .set({ status: completed ? 'CONFIRMED' : 'REVERTED', last_error: `resolved ${input.outcome} by the operator`, updated_at: now })
      .where('purpose', '=', 'withdrawal')
      .where('owner_id', '=', row.id)
      .where('status', '=', 'UNRESOLVED')
      .execute();
    return resolved;
  });
  return withdrawalView(updated, reference);
}
