/**
 * Applying a withdrawal transition inside the caller's transaction: the status from the state
 * machine, the lock effect (release, or consume plus the WITHDRAWAL debit with custody +X per
 * the custody ledger convention), and the frames the machine lists (the balances, when the lock ends).
 */
import { decideWithdrawal, type WithdrawalEvent } from '../../domain/funds/withdrawal-state.ts';
import { ServiceError } from '../../domain/errors.ts';
import { withdrawalPostings } from '../../domain/ledger/index.ts';
import { endLock, postMovement } from '../../store/ledger.ts';
import { lockWithdrawalRow, writeWithdrawalTransition } from '../../store/withdrawal-records.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { pushFrames } from '../frames.ts';
import type { WithdrawalRow } from './withdrawal-views.ts';

/** Locks and returns the withdrawal row; NOT_FOUND when absent. */
export async function lockWithdrawal(tx: Tx, withdrawalId: string): Promise<WithdrawalRow> {
  const row = await lockWithdrawalRow(tx, withdrawalId);
  if (!row) throw new ServiceError('NOT_FOUND', `no withdrawal ${withdrawalId}`);
  return row;
}

export async function applyWithdrawalEvent(
  tx: Tx,
  deps: ServiceDeps,
  row: WithdrawalRow,
  event: WithdrawalEvent,
  change: { txHash?: string | null; failureReason?: string | null },
  now: number,
): Promise<WithdrawalRow> {
  const next = decideWithdrawal({ status: row.status, accountId: row.account_id }, event);
  if (next.lock === 'release') {
    await endLock(tx, 'withdrawal', row.id, 'release', event, now);
  } else if (next.lock === 'consume') {
    const lock = await endLock(tx, 'withdrawal', row.id, 'consume', event, now);
    if (!lock || lock.amount !== row.amount) throw new Error(`withdrawal ${row.id} has no live lock of its amount`);
    await postMovement(tx, {
      movementId: deps.ids.uuid(),
      kind: 'WITHDRAWAL',
      reference: row.id,
      at: now,
      postingIds: [deps.ids.uuid(), deps.ids.uuid()],
      postings: withdrawalPostings(row.account_id, { token: row.token, amount: row.amount }),
    });
  }
  const updated = await writeWithdrawalTransition(tx, { id: row.id, from: row.status, to: next.status, txHash: change.txHash, failureReason: change.failureReason }, now);
  await pushFrames(tx, deps, next.frames, {}, now);
  return updated;
}
