/**
 * What a custody transfer's outcome does, by purpose, inside the transaction that ends it.
 * - withdrawal: the withdrawal state machine (confirm: debit from locked, custody +X; revert:
 *   FAILED and released; lost, cancelled or stuck past the broadcaster's bounds: UNRESOLVED, still
 *   locked). A transfer escalated while unmined is still watched, so a withdrawal already
 *   UNRESOLVED is settled by its later outcome (confirmed: COMPLETED; reverted: FAILED) and keeps
 *   waiting for the operator on a cancel or a lost nonce;
 * - payout (promised mode): confirm moves the maker's leg from the `maker_settlement` book (the
 *   service's debt to the maker, booked when the delivery settled) to custody (+X: it left
 *   custody). A reverted or lost payout books nothing: the debt stays in `maker_settlement` for
 *   the operator, visible in the transfer's status.
 * - xchange: only the execution record moves (its tx hash, or why it did not execute; a revert or
 *   loss or expiry leaves the quote to the executor's next attempt until the deadline). The swap's ledger is
 *   booked by the chain follower from `XchangeSettled`, aligned with the custody check's block.
 * - approval: nothing to book (no tokens move).
 */
import { promisedPayoutPostings } from '../../domain/ledger/index.ts';
import { postMovement } from '../../store/ledger.ts';
import type { CustodyTransferEvent } from '../../domain/funds/custody-transfer-state.ts';
import type { Tx } from '../../store/transaction.ts';
import { noteXchangeExecution } from '../../store/xchange-executions.ts';
import type { ServiceDeps } from '../deps.ts';
import type { CustodyTransferRow } from './custody-transfers.ts';
import { applyWithdrawalEvent, lockWithdrawal } from './withdrawal-outcomes.ts';

export type CustodyOutcome =
  | { kind: 'signed' }
  /** Unmined past the broadcaster's bounds: handed to the operator, the transfer still watched. */
  | { kind: 'stuck'; reason: string }
  | { kind: 'confirmed'; blockNumber: number }
  | { kind: 'reverted'; blockNumber: number }
  /** The operator's zero-value cancel was mined at the transfer's nonce: nothing was paid. */
  | { kind: 'cancelled'; blockNumber: number; reason: string }
  | { kind: 'lost'; reason: string }
  /** A call still queued when its deadline passed: never signed, nothing sent. */
  | { kind: 'expired'; reason: string };

/** The outcomes that end a transfer. */
export type EndingOutcome = Exclude<CustodyOutcome, { kind: 'signed' } | { kind: 'stuck' }>;

const ENDING_EVENT: Record<EndingOutcome['kind'], CustodyTransferEvent> = { confirmed: 'confirm', reverted: 'revert', cancelled: 'cancel', lost: 'lose', expired: 'expire' };

/**
 * Ends (or, for `signed`, advances) the transfer's owner. The caller has already moved the transfer
 * row itself under its row lock. For `signed` only the withdrawal moves (APPROVED -> PROCESSING).
 */
export async function applyCustodyOutcome(tx: Tx, deps: ServiceDeps, transfer: CustodyTransferRow, outcome: CustodyOutcome, now: number): Promise<void> {
  if (transfer.purpose === 'withdrawal') {
    const withdrawal = await lockWithdrawal(tx, transfer.owner_id);
    const escalated = withdrawal.status === 'UNRESOLVED';
    if (outcome.kind === 'signed') await applyWithdrawalEvent(tx, deps, withdrawal, 'sign', { txHash: transfer.tx_hash }, now);
    else if (outcome.kind === 'confirmed') await applyWithdrawalEvent(tx, deps, withdrawal, escalated ? 'resolveCompleted' : 'confirm', { txHash: transfer.tx_hash }, now);
    else if (outcome.kind === 'reverted') await applyWithdrawalEvent(tx, deps, withdrawal, escalated ? 'resolveFailed' : 'revert', { failureReason: `transaction ${transfer.tx_hash} reverted` }, now);
    else if (!escalated) await applyWithdrawalEvent(tx, deps, withdrawal, 'lose', { failureReason: outcome.reason }, now);
    return;
  }
  if (outcome.kind === 'stuck') return;
  if (transfer.purpose === 'xchange') {
    const fields =
      outcome.kind === 'signed' ? { tx_hash: transfer.tx_hash }
      : outcome.kind === 'confirmed' ? { tx_hash: transfer.tx_hash, last_error: null }
      : outcome.kind === 'reverted' ? { last_error: `reverted (tx ${transfer.tx_hash})` }
      : { last_error: outcome.reason };
    await noteXchangeExecution(tx, transfer.owner_id, fields);
    return;
  }
  if (transfer.purpose === 'payout' && outcome.kind === 'confirmed') {
    await postMovement(tx, {
      movementId: deps.ids.uuid(),
      kind: 'PAYOUT',
      reference: transfer.owner_id,
      memo: transfer.tx_hash ?? undefined,
      at: now,
      postingIds: [deps.ids.uuid(), deps.ids.uuid()],
      postings: promisedPayoutPostings({ token: transfer.token, amount: transfer.amount }),
    });
  }
}

/** The transfer's state machine event an ending outcome is. */
export function endingEvent(outcome: EndingOutcome): CustodyTransferEvent {
  return ENDING_EVENT[outcome.kind];
}
