/** Background work a node runs, each switchable per node (RFQ_WORKERS). */
import type { Logger } from 'pino';
import type { ApiContext } from '../api/context.ts';

export interface Workers {
  stop(): Promise<void>;
}

export async function startWorkers(context: ApiContext, enabled: ReadonlySet<string>, logger: Logger): Promise<Workers> {
  const timers: NodeJS.Timeout[] = [];
  // Replay claims only matter inside the skew window; older ones are dead weight.
  const prune = setInterval(() => {
    const horizon = context.service.clock.now() - 2 * context.service.auth.timestampSkewMs;
    context.authentication.claims.prune(horizon).catch((error: unknown) => logger.warn({ err: error }, 'pruning replay claims failed'));
  }, 10_000);
  prune.unref();
  timers.push(prune);
  void enabled;
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
