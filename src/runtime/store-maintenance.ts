/**
 * Runs the embedded store's vacuum and analyze rounds (src/store/embedded-maintenance.ts) in the
 * background lane, one round at a time. Only on PGlite: a PostgreSQL server has its own
 * autovacuum, and a cluster's nodes must not all vacuum it too.
 */
import type { Logger } from 'pino';
import type { Store } from '../store/database.ts';
import { maintainTables } from '../store/embedded-maintenance.ts';
import { inBackgroundLane } from '../store/work-lane.ts';

/** How often the embedded store is looked at; autovacuum's own naptime. */
export const STORE_MAINTENANCE_INTERVAL_MS = 60_000;

export interface StoreMaintenance {
  stop(): Promise<void>;
}

export function startStoreMaintenance(store: Store, logger: Logger, intervalMs = STORE_MAINTENANCE_INTERVAL_MS): StoreMaintenance {
  if (store.kind !== 'pglite') return { stop: async () => undefined };
  let running: Promise<void> | null = null;
  const round = async () => {
    const started = Date.now();
    try {
      const done = await maintainTables(store.db);
      if (done.length > 0) logger.debug({ tables: done, ms: Date.now() - started }, 'embedded store vacuumed and analyzed');
    } catch (error) {
      logger.warn({ err: error }, 'embedded store maintenance failed (retried next round)');
    }
  };
  const timer = setInterval(() => {
    if (running) return;
    running = inBackgroundLane(round).finally(() => (running = null));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
