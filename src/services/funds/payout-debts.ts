/**
 * Promised payouts the service still owes. The maker's leg of a promised trade
 * is booked to `maker_settlement` when the delivery settles and leaves it only when a payout
 * transfer is confirmed (custody-outcomes.ts). A payout whose transfer ended without paying is a
 * debt: REVERTED (mined, reverted), CANCELLED (the operator's cancel used its nonce) or UNRESOLVED
 * (its nonce was used by a transaction none of ours). Each of these ends only once custody's nonce
 * of the transfer is used, so nothing signed for it can be mined any more, and a new payout cannot
 * make the maker paid twice. The operator lists them and, once the cause is fixed (custody funded,
 * fee cap raised ...), queues the payout again; at most one live (queued, in flight or confirmed)
 * payout per quote (unique index, migration 0047) makes a second retry, or a retry of a paid one,
 * 409 PAYOUT_NOT_OWED.
 */
import { ServiceError } from '../../domain/errors.ts';
import { lockLatestPayoutOfQuote } from '../../store/custody-transfer-queue.ts';
import { attemptsOfTransfers, custodyTransferById, unpaidPayoutTransfers } from '../../store/custody-transfer-reads.ts';
import { inTransaction } from '../../store/outbox.ts';
import type { ServiceDeps } from '../deps.ts';
import { custodyTransferView } from './custody-transfer-views.ts';
import { enqueuePayoutRetry, type CustodyTransferRow } from './custody-transfers.ts';

export const UNPAID_PAYOUT_STATUSES = ['REVERTED', 'CANCELLED', 'UNRESOLVED'] as const;
const LIVE_PAYOUT_STATUSES = ['QUEUED', 'SIGNED', 'SENT', 'CONFIRMED'] as const;
/** Operator list bound: debts are rare; more than this is an incident, listed oldest first. */
const MAX_LISTED = 200;

async function viewsOf(deps: ServiceDeps, rows: CustodyTransferRow[]) {
  const reference = await deps.refdata.current();
  const attempts = await attemptsOfTransfers(deps.db, rows.map((r) => r.id));
  return rows.map((row) => custodyTransferView(row, attempts.filter((a) => a.transfer_id === row.id), reference));
}

/** GET /admin/v1/payouts/unpaid: each owed payout's last transfer (why it did not pay: status, lastError, attempts). */
export async function listUnpaidPayouts(deps: ServiceDeps) {
  return { items: await viewsOf(deps, await unpaidPayoutTransfers(deps.db, UNPAID_PAYOUT_STATUSES, LIVE_PAYOUT_STATUSES, MAX_LISTED)) };
}

/** POST /admin/v1/payouts/{quoteId}/retry: queues the payout again (same maker address, token, amount). */
export async function retryPayout(deps: ServiceDeps, quoteId: string) {
  const now = deps.clock.now();
  const id = await inTransaction(deps.db, async (tx) => {
    const last = await lockLatestPayoutOfQuote(tx, quoteId);
    if (!last) throw new ServiceError('NOT_FOUND', `no promised payout for quote ${quoteId}`);
    if (!(UNPAID_PAYOUT_STATUSES as readonly string[]).includes(last.status)) {
      throw new ServiceError('PAYOUT_NOT_OWED', `the payout of quote ${quoteId} is ${last.status}; only one that ended ${UNPAID_PAYOUT_STATUSES.join(', ')} can be queued again`, { status: last.status });
    }
    // Two retries racing: the loser's insert meets the live-payout index and queues nothing.
    const queued = await enqueuePayoutRetry(tx, deps, { ownerId: quoteId, token: last.token, tokenAddress: last.token_address, toAddress: last.to_address, amount: last.amount }, now);
    if (!queued) throw new ServiceError('PAYOUT_NOT_OWED', `a payout of quote ${quoteId} is already live`, { status: 'QUEUED' });
    return queued;
  });
  const row = await custodyTransferById(deps.db, id);
  return (await viewsOf(deps, [row]))[0]!;
}
