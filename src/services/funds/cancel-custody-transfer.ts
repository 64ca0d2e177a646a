/**
 * Operator cancel of a stuck custody transaction: the broadcaster replaces it, at the same nonce
 * and with a higher fee, by a zero-value transfer from custody to itself. Whichever of the two is
 * mined consumes the nonce, so after that nothing signed for this transfer can be mined any more
 * (a withdrawal may then be resolved FAILED). Only a signed, unconfirmed transfer can be
 * cancelled (409 CUSTODY_TRANSFER_NOT_CANCELLABLE otherwise); asking twice changes nothing.
 */
import { ServiceError } from '../../domain/errors.ts';
import { cancellable } from '../../domain/funds/custody-transfer-state.ts';
import { lockCustodyTransfer, markCancelRequested } from '../../store/custody-transfer-queue.ts';
import { attemptsOfTransfers } from '../../store/custody-transfer-reads.ts';
import { inTransaction } from '../../store/outbox.ts';
import type { ServiceDeps } from '../deps.ts';
import { custodyTransferView } from './custody-transfer-views.ts';

export async function cancelCustodyTransfer(deps: ServiceDeps, transferId: string) {
  const now = deps.clock.now();
  const reference = await deps.refdata.current();
  const row = await inTransaction(deps.db, async (tx) => {
    const locked = await lockCustodyTransfer(tx, transferId);
    if (!locked) throw new ServiceError('NOT_FOUND', `no custody transfer ${transferId}`);
    if (!cancellable(locked.status)) {
      throw new ServiceError('CUSTODY_TRANSFER_NOT_CANCELLABLE', `custody transfer is ${locked.status}; only a signed, unconfirmed one (SIGNED, SENT) can be cancelled`, { status: locked.status });
    }
    if (locked.cancel_requested_at !== null) return locked;
    return markCancelRequested(tx, transferId, now);
  });
  const attempts = await attemptsOfTransfers(deps.db, [transferId]);
  return custodyTransferView(row, attempts, reference);
}
