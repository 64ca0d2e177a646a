/** `/v0` order statuses (DESIGN.md section 10), decided in one place. */
export type V0OrderStatus = 'pending' | 'open' | 'filled' | 'partially_filled' | 'cancelled' | 'expired' | 'failed';

export const TERMINAL_STATUSES: readonly V0OrderStatus[] = ['filled', 'partially_filled', 'cancelled', 'expired', 'failed'];

export function isTerminal(status: V0OrderStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/**
 * The status of an order the venue has finished with: everything filled is `filled`; a user's
 * cancel is `cancelled` (even after part of it filled, the spec's "cancelled by the user"); an
 * order that ended with some fill is `partially_filled`; an IOC that matched nothing is `expired`.
 */
export function finishedStatus(amount: bigint, filled: bigint, cancelledByUser: boolean): V0OrderStatus {
  if (filled >= amount) return 'filled';
  if (cancelledByUser) return 'cancelled';
  return filled > 0n ? 'partially_filled' : 'expired';
}

/** Which orders `cancelOrder` may cancel: a resting (or not yet acknowledged) GTC order. */
export function cancellable(status: V0OrderStatus, tif: 'Ioc' | 'Gtc'): boolean {
  return tif === 'Gtc' && (status === 'open' || status === 'pending');
}
