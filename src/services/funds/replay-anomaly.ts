/**
 * Operator replay of a quarantined chain log (kind `HANDLER_FAILED`, log-quarantine.ts) once the
 * cause of its failure is fixed: the handler that failed runs again on the stored log, in one
 * transaction with marking the anomaly `REPLAYED`, so its effect (a deposit credited, a trade
 * settled ...) happens exactly once. The anomaly row is locked for the replay: of two concurrent
 * replays one applies and the other finds it resolved. Refused with nothing changed:
 * - an anomaly already resolved (replayed, or marked handled by hand): 409 ANOMALY_ALREADY_RESOLVED;
 * - one that is not a quarantined log (no stored log to replay): 409 ANOMALY_NOT_REPLAYABLE;
 * - a handler that fails again: 409 ANOMALY_REPLAY_FAILED with its error; the log stays quarantined.
 */
import { ServiceError } from '../../domain/errors.ts';
import { inTransaction } from '../../store/outbox.ts';
import { lockSettlementAnomaly, markAnomalyReplayed } from '../../store/settlement-anomalies.ts';
import type { ServiceDeps } from '../deps.ts';
import { settlementAnomalyView } from '../settlement/settle-quote.ts';
import { QUARANTINED_KIND, type QuarantinedLog } from './chain-log-replay.ts';

interface StoredDetail {
  handler?: string;
  log?: Omit<QuarantinedLog, 'transactionHash'>;
}

export async function replaySettlementAnomaly(deps: ServiceDeps, input: { txHash: string; logIndex: number }) {
  const txHash = input.txHash.toLowerCase();
  const row = await inTransaction(deps.db, async (tx) => {
    const locked = await lockSettlementAnomaly(tx, txHash, input.logIndex);
    if (!locked) throw new ServiceError('NOT_FOUND', `no settlement anomaly for log ${input.logIndex} of ${txHash}`);
    if (locked.resolved_at !== null) {
      throw new ServiceError('ANOMALY_ALREADY_RESOLVED', `this anomaly was already resolved (${locked.resolution ?? 'resolved'}); nothing was replayed`, { resolution: locked.resolution, resolvedAt: locked.resolved_at });
    }
    const detail = locked.detail as StoredDetail;
    if (locked.kind !== QUARANTINED_KIND || !detail.handler || !detail.log) {
      throw new ServiceError('ANOMALY_NOT_REPLAYABLE', `a ${locked.kind} anomaly holds no quarantined chain log to replay; resolve it by hand`, { kind: locked.kind });
    }
    if (!deps.chainLogReplay) throw new ServiceError('NOT_AVAILABLE', 'this node follows no chain: it cannot replay a chain log');
    try {
      await deps.chainLogReplay(tx, detail.handler, { ...detail.log, transactionHash: txHash as `0x${string}` });
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
      throw new ServiceError('ANOMALY_REPLAY_FAILED', `the ${detail.handler} handler failed again: ${message}; the log stays quarantined`, { handler: detail.handler, error: message }, { cause: error });
    }
    return markAnomalyReplayed(tx, txHash, input.logIndex, deps.clock.now());
  });
  return settlementAnomalyView(row);
}
