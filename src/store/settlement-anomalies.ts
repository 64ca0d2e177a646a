/**
 * Settlement anomalies (migrations 0011, 0031), one per chain log (tx_hash, log_index): what the
 * chain did that the service did not expect (a mismatching or late settlement; a quarantined log,
 * written by src/chain/watcher/log-quarantine.ts), listed for the operator until resolved
 * (`resolution`: HANDLED ... or REPLAYED).
 */
import type { Selectable } from 'kysely';
import type { SettlementAnomaliesTable } from './schema.ts';
import type { Reader, Tx } from './transaction.ts';

type AnomalyRow = Selectable<SettlementAnomaliesTable>;

/** What was unexpected about a log: `kind`, the quote and RFQ it concerns (when known), and the detail shown to the operator. */
export interface NewSettlementAnomaly {
  kind: string;
  quoteId: string | null;
  rfqId: string | null;
  detail: Record<string, unknown>;
  at: number;
}

/** Records the anomaly of a log (lowercase tx hash) once; false when that log already has one. */
export async function recordSettlementAnomaly(tx: Tx, log: { txHash: string; logIndex: number }, anomaly: NewSettlementAnomaly): Promise<boolean> {
  const inserted = await tx
    .insertInto('settlement_anomalies')
    .values({ tx_hash: log.txHash, log_index: log.logIndex, kind: anomaly.kind, quote_id: anomaly.quoteId, rfq_id: anomaly.rfqId, detail: JSON.stringify(anomaly.detail), created_at: anomaly.at })
    .onConflict((oc) => oc.columns(['tx_hash', 'log_index']).doNothing())
    .returning('tx_hash')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function settlementAnomalyOfLog(db: Reader, txHash: string, logIndex: number): Promise<AnomalyRow | undefined> {
  return db.selectFrom('settlement_anomalies').selectAll().where('tx_hash', '=', txHash).where('log_index', '=', logIndex).executeTakeFirst();
}

/** The log's anomaly, its row locked until the transaction ends (a replay holds it); undefined when none. */
export async function lockSettlementAnomaly(tx: Tx, txHash: string, logIndex: number): Promise<AnomalyRow | undefined> {
  return tx.selectFrom('settlement_anomalies').selectAll().where('tx_hash', '=', txHash).where('log_index', '=', logIndex).forUpdate().executeTakeFirst();
}

/** Resolves the log's anomaly with `resolution` if it is still open; one already resolved keeps its resolution. */
export async function resolveOpenAnomaly(db: Reader, txHash: string, logIndex: number, resolution: string, now: number): Promise<void> {
  await db.updateTable('settlement_anomalies').set({ resolved_at: now, resolution }).where('tx_hash', '=', txHash).where('log_index', '=', logIndex).where('resolved_at', 'is', null).execute();
}

/** Marks the log's anomaly REPLAYED (the caller holds its lock); returns the row as written. */
export async function markAnomalyReplayed(tx: Tx, txHash: string, logIndex: number, now: number): Promise<AnomalyRow> {
  return tx.updateTable('settlement_anomalies').set({ resolved_at: now, resolution: 'REPLAYED' }).where('tx_hash', '=', txHash).where('log_index', '=', logIndex).returningAll().executeTakeFirstOrThrow();
}

/** The newest `limit` anomalies, newest first. */
export async function newestSettlementAnomalies(db: Reader, limit: number): Promise<AnomalyRow[]> {
  return db.selectFrom('settlement_anomalies').selectAll().orderBy('created_at', 'desc').limit(limit).execute();
}
