/**
 * Operator resolve of a settlement anomaly (a quarantined chain log among them): marks it handled,
 * so it leaves the invariants report and the quarantine gauge. Resolving one already resolved
 * changes nothing. A quarantined log whose cause is fixed can instead be replayed through its
 * handler (replay-anomaly.ts).
 */
import { ServiceError } from '../../domain/errors.ts';
import { resolveOpenAnomaly, settlementAnomalyOfLog } from '../../store/settlement-anomalies.ts';
import type { ServiceDeps } from '../deps.ts';
import { settlementAnomalyView } from '../settlement/settle-quote.ts';

export async function resolveSettlementAnomaly(deps: ServiceDeps, input: { txHash: string; logIndex: number; note?: string | undefined }) {
  const now = deps.clock.now();
  const txHash = input.txHash.toLowerCase();
  const resolution = input.note ? `HANDLED: ${input.note}` : 'HANDLED';
  await resolveOpenAnomaly(deps.db, txHash, input.logIndex, resolution, now);
  const row = await settlementAnomalyOfLog(deps.db, txHash, input.logIndex);
  if (!row) throw new ServiceError('NOT_FOUND', `no settlement anomaly for log ${input.logIndex} of ${txHash}`);
  return settlementAnomalyView(row);
}
