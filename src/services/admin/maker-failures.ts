/**
 * A maker's settlement failures and suspension state (GET /admin/v1/makers/{address}/failures):
 * what the operator reads before lifting a suspension. Newest first, at most `limit` rows.
 */
import { ServiceError } from '../../domain/errors.ts';
import { makerSuspensionByAddress, recentMakerFailures } from '../../store/maker-registry.ts';
import type { ServiceDeps } from '../deps.ts';
import { normaliseAddress } from './makers.ts';

export async function listMakerFailures(deps: ServiceDeps, rawAddress: string, limit: number) {
  const address = normaliseAddress(rawAddress, 'address');
  const maker = await makerSuspensionByAddress(deps.db, address);
  if (!maker) throw new ServiceError('NOT_FOUND', 'no maker with this address');
  const failures = await recentMakerFailures(deps.db, maker.maker_id, limit);
  return {
    makerId: maker.maker_id,
    address,
    suspendedUntil: maker.suspended_until,
    suspensionCount: maker.suspension_count,
    lastSuspendedAt: maker.last_suspended_at,
    failures: failures.map((f) => ({ quoteId: f.quote_id, rfqId: f.rfq_id, reason: f.reason, createdAt: f.created_at })),
  };
}
