/**
 * One bad log must not stop the chain follower: a handler runs each log's work in a savepoint
 * through `isolateLog`. While the step has failed fewer than `QUARANTINE_AFTER_FAILED_STEPS` times
 * in a row, an error still fails the whole step (it is retried: most errors are transient, such as
 * an RPC timeout); after that, the failing log's work is undone alone and the log is quarantined
 * as a settlement anomaly (`HANDLER_FAILED`, with the handler, the error and the log), and the
 * step goes on with the other logs. The operator lists it (`/admin/v1/settlement-anomalies`), and
 * marks it handled or, once its cause is fixed, replays it through its handler (replay-anomaly.ts).
 */
import { QUARANTINED_KIND } from '../../services/funds/chain-log-replay.ts';
import { inSavepoint } from '../../store/outbox.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ChainStep, ObservedLog } from './chain-watcher.ts';

/** Consecutive failures of a step before its failing logs are quarantined instead of retried. */
export const QUARANTINE_AFTER_FAILED_STEPS = 3;
export { QUARANTINED_KIND };

export type Isolated<T> = { quarantined: false; value: T } | { quarantined: true };

export async function isolateLog<T>(tx: Tx, step: ChainStep, handler: string, log: ObservedLog, now: number, work: () => Promise<T>): Promise<Isolated<T>> {
  const result = await inSavepoint(tx, work);
  if (result.ok) return { quarantined: false, value: result.value };
  if ((step.failedAttempts ?? 0) < QUARANTINE_AFTER_FAILED_STEPS) throw result.error;
  await quarantineLog(tx, step, handler, log, result.error, now);
  return { quarantined: true };
}

/** Records `log` as quarantined for `handler` (once per log); a log that can never apply goes here at once. */
export async function quarantineLog(tx: Tx, step: ChainStep, handler: string, log: ObservedLog, cause: unknown, now: number): Promise<void> {
  const error = cause instanceof Error ? `${cause.name}: ${cause.message.split('\n')[0]}` : String(cause);
  await tx
    .insertInto('settlement_anomalies')
    .values({
      tx_hash: log.transactionHash.toLowerCase(),
      log_index: log.logIndex,
      kind: QUARANTINED_KIND,
      quote_id: null,
      rfq_id: null,
      detail: JSON.stringify({
        handler,
        error,
        failedSteps: step.failedAttempts ?? 0,
        log: { address: log.address, topics: log.topics, data: log.data, blockNumber: log.blockNumber, logIndex: log.logIndex, blockTimestampSecs: log.blockTimestampSecs },
      }),
      created_at: now,
    })
    .onConflict((oc) => oc.columns(['tx_hash', 'log_index']).doNothing())
    .execute();
}

/** `txHash:logIndex` (lowercase hash) of the logs among `logs` quarantined and still open: an earlier handler of the step gave up on them. */
export async function openQuarantines(tx: Tx, logs: ObservedLog[]): Promise<Set<string>> {
  if (logs.length === 0) return new Set();
  const rows = await tx
    .selectFrom('settlement_anomalies')
    .select(['tx_hash', 'log_index'])
    .where('kind', '=', QUARANTINED_KIND)
    .where('resolved_at', 'is', null)
    .where('tx_hash', 'in', [...new Set(logs.map((l) => l.transactionHash.toLowerCase()))])
    .execute();
  return new Set(rows.map((r) => `${r.tx_hash}:${r.log_index}`));
}
