/**
 * Wires the perp executor (services/perp/execute-perp.ts) to the node's venue client and the
 * (signer, nonce) claims, and runs it as a deadline worker: an accept schedules its execution at
 * once (the `perpAccepted` hook), a sweep finds the rest (other nodes' accepts, executions whose
 * look-up is due again, executions a crashed node left behind once their lease lapsed).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ServiceDeps } from '../services/deps.ts';
import { duePerpExecutions, runPerpExecution, type PerpExecutor } from '../services/perp/execute-perp.ts';
import type { VenueClient } from '../venue/venue-client.ts';
import type { VenueNetwork } from '../domain/perp/types.ts';
import { DeadlineWorker } from './deadline-worker.ts';
import { inBackgroundLane } from '../store/work-lane.ts';
import { CheckReadsAhead } from '../services/perp/check-reads.ts';
import { RecoveryThread } from './recovery-thread.ts';

/** Executions driven at once per node; each holds a store connection only inside a transition. */
const PERP_EXECUTION_CONCURRENCY = 8;

export interface PerpExecutionOptions {
  /** RFQ_PERP_RESOLVE_WINDOW_MS (default 30 s). */
  resolveWindowMs?: number;
  resolvePollMs?: number;
  makerLookupMs?: number;
  leaseMs?: number;
  /** Executions driven at once on this node (default PERP_EXECUTION_CONCURRENCY). */
  concurrency?: number;
}

export interface PerpWiring {
  executor: PerpExecutor;
  start(logger: Logger): DeadlineWorker;
  /** Stops what `start` started besides the worker (the recovery thread). */
  stop(): Promise<void>;
}

export function wirePerpExecutor(
  deps: ServiceDeps,
  venue: VenueClient,
  settings: { network: VenueNetwork; builderAddress: `0x${string}` | null },
  options: PerpExecutionOptions = {},
): PerpWiring {
  // The execution's reads spend before quote-time reads (venue-client.ts).
  const execution = venue.forExecution();
  const executor: PerpExecutor = {
    deps,
    venue: execution,
    network: settings.network,
    builderAddress: settings.builderAddress ? (settings.builderAddress.toLowerCase() as `0x${string}`) : null,
    resolveWindowMs: options.resolveWindowMs ?? 30_000,
    resolvePollMs: options.resolvePollMs ?? 500,
    makerLookupMs: options.makerLookupMs ?? 3_000,
    leaseMs: options.leaseMs ?? 15_000,
    nodeId: `node_${randomUUID()}`,
  };
  let recovery: RecoveryThread | null = null;
  return {
    executor,
    async stop() {
      await recovery?.stop();
      recovery = null;
    },
    start(logger) {
      // Recoveries off the event loop (recovery-thread.ts), for the checks and the reads ahead.
      recovery = new RecoveryThread(logger);
      executor.recover = recovery.recover;
      executor.readsAhead = new CheckReadsAhead({ venue: execution, network: executor.network, builderAddress: executor.builderAddress, clock: deps.clock, recover: recovery.recover });
      const worker = new DeadlineWorker({
        name: 'perp-executions',
        sweepIntervalMs: 250,
        // An execution waits on the venue far more than on the store (it holds no connection, and
        // no row lock, across a venue call): four drainers queued accepts behind each other's
        // venue round trips (p99 in seconds at 10 accepts/s). Executions run side by side instead.
        concurrency: options.concurrency ?? PERP_EXECUTION_CONCURRENCY,
        batchSize: 1,
        findDue: (limit) => duePerpExecutions(deps, limit),
        // The maker cancels after the outcome run outside the slot (handed off, lease still held):
        // a slot is held from the checks to the committed outcome, the accept-to-SETTLED path.
        processBatch: async (ids) => {
          for (const id of ids) await runPerpExecution(executor, id, { handOffCleanup: (rest) => worker.track(rest) });
        },
        logger,
      });
      // In the background lane, as the other workers' hooks are: the hook runs in the accept's
      // request context, and the timer and the drainer it starts would otherwise stay in that
      // lane (PGlite: behind waiting requests; PostgreSQL: without the reserved connections).
      deps.hooks.perpAccepted = (id) => inBackgroundLane(() => worker.schedule(id, Date.now()));
      deps.hooks.perpAcceptArrived = (rfqId, order, taker) => executor.readsAhead?.arrived(rfqId, order, taker);
      worker.start();
      return worker;
    },
  };
}
