/**
 * Quarantined chain logs (log-quarantine.ts) stay visible until the operator resolves them: each
 * open one makes `GET /admin/v1/invariants` report `quarantinedChainLogs` (their count and the
 * oldest few), and their number is the gauge `rfq_chain_quarantined_logs`.
 */
import { Gauge, type Registry } from 'prom-client';
import type { ExtraInvariant, Violation } from '../../services/admin/invariants.ts';
import type { Reader } from '../../store/transaction.ts';
import { QUARANTINED_KIND } from './log-quarantine.ts';

/** Listed individually up to this many; the count is always exact. */
const MAX_LISTED = 20;

const openCount = async (db: Reader) =>
  Number((await db.selectFrom('settlement_anomalies').select((eb) => eb.fn.countAll<string>().as('n')).where('kind', '=', QUARANTINED_KIND).where('resolved_at', 'is', null).executeTakeFirst())?.n ?? 0);

export function quarantineInvariant(): ExtraInvariant {
  return async (db) => {
    const count = await openCount(db);
    if (count === 0) return [];
    const oldest = await db.selectFrom('settlement_anomalies').select(['tx_hash', 'log_index', 'detail', 'created_at']).where('kind', '=', QUARANTINED_KIND).where('resolved_at', 'is', null).orderBy('created_at').limit(MAX_LISTED).execute();
    const violation: Violation = {
      check: 'quarantinedChainLogs',
      detail: {
        count,
        oldest: oldest.map((row) => {
          const detail = row.detail as { handler?: string; error?: string };
          return { txHash: row.tx_hash, logIndex: row.log_index, handler: detail.handler ?? null, error: detail.error ?? null, since: row.created_at };
        }),
      },
    };
    return [violation];
  };
}

export function registerQuarantineGauge(registry: Registry, db: Reader): void {
  new Gauge({
    name: 'rfq_chain_quarantined_logs',
    help: 'Chain logs quarantined by the follower and not yet resolved by the operator',
    registers: [registry],
    async collect() {
      this.set(await openCount(db));
    },
  });
}
