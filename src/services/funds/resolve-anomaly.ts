/**
 * Operator resolve of a settlement anomaly (a quarantined chain log among them): marks it handled,
 * so it leaves the invariants report and the quarantine gauge. Resolving one already resolved
 * changes nothing. A quarantined log whose cause is fixed can instead be replayed through its
 * handler (replay-anomaly.ts).
 */
import { ServiceError } from '../../domain/errors.ts';
import type { ServiceDeps } from '../deps.ts';
import { settlementAnomalyView } from '../settlement/settle-quote.ts';

export async function resolveSettlementAnomaly(deps: ServiceDeps, input: { txHash: string; logIndex: number; note?: string | undefined }) {
  const now = deps.clock.now();
  const txHash = input.txHash.toLowerCase();
  const resolution = input.note ? `HANDLED: ${input.note}` : 'HANDLED';
  await deps.db.updateTable('settlement_anomalies').set({ resolved_at: now, resolution }).where('tx_hash', '=', txHash).where('log_index', '=', input.logIndex).where('resolved_at', 'is', null).execute();
  const row = await deps.db.selectFrom('settlement_anomalies').selectAll().where('tx_hash', '=', txHash).where('log_index', '=', input.logIndex).executeTakeFirst();
  if (!row) throw new ServiceError('NOT_FOUND', `no settlement anomaly for log ${input.logIndex} of ${txHash}`);
  return settlementAnomalyView(row);
}
