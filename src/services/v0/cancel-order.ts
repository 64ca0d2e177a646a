/**
 * `cancelOrder`: only a resting GTC order can be cancelled. `wrapped` names it by UUID and refuses
 * with CANCELLATION_ERROR; `flat` names it by client order id and refuses with ORDER_ERROR. The
 * request is recorded here; the venue worker signs the cancel and frees the rest of the lock.
 */
import { ServiceError } from '../../domain/errors.ts';
import { cancellable } from '../../domain/v0/order-status.ts';
import { validationError } from '../../domain/v0/venue-grid.ts';
import { lockV0OrderToCancel, markV0OrderCancelRequested } from '../../store/v0-order-rows.ts';
import { requireAccount } from './accounts.ts';
import type { V0Layout } from './create-order.ts';
import type { V0Deps } from './v0-deps.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CLOID = /^0x[0-9a-fA-F]{32}$/;

export async function requestCancel(deps: V0Deps, identity: string, layout: V0Layout, orderId: unknown): Promise<{ id: string }> {
  if (typeof orderId !== 'string') throw validationError('orderId', 'is required');
  if (layout === 'wrapped' && !UUID.test(orderId)) throw validationError('orderId', 'must be the UUID createOrder returned');
  if (layout === 'flat' && !CLOID.test(orderId)) throw validationError('orderId', 'must be the 0x-prefixed 32-hex id createOrder returned (not a dord_ id)');
  const refusal = layout === 'wrapped' ? 'CANCELLATION_ERROR' : 'ORDER_ERROR';
  const now = deps.service.clock.now();
  const id = await deps.service.db.transaction().execute(async (tx) => {
    const accountId = await requireAccount(tx, identity);
    const row = await lockV0OrderToCancel(tx, accountId, layout === 'wrapped' ? 'order_uuid' : 'cloid', orderId.toLowerCase());
    if (!row) throw new ServiceError(refusal, 'no such order');
    if (row.tif !== 'Gtc') throw new ServiceError(refusal, 'immediate-or-cancel orders cannot be cancelled');
    if (!cancellable(row.status, row.tif) || row.cancel_requested) throw new ServiceError(refusal, `the order is ${row.cancel_requested ? 'already being cancelled' : row.status} and cannot be cancelled`);
    await markV0OrderCancelRequested(tx, row.id, now);
    return row.id;
  });
  return { id };
}
