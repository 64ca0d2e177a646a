/**
 * The auction closer, one definition for both places it runs: in the node's own event loop
 * (workers.ts) or on the auction thread's (auction-thread.ts). A timer per auction this node
 * scheduled; the sweep finds every other due one (another node's, one from before a restart).
 */
import type { Logger } from 'pino';
import type { ServiceDeps } from '../services/deps.ts';
import { closeAuctions, dueAuctions, type ClosedAuction } from '../services/rfq/close-auction.ts';
import { DeadlineWorker } from './deadline-worker.ts';

export function auctionCloser(deps: ServiceDeps, onClosed: (closed: ClosedAuction) => void, logger: Logger): DeadlineWorker {
  return new DeadlineWorker({
    name: 'auctions',
    sweepIntervalMs: 250,
    concurrency: 2,
    batchSize: 100,
    findDue: (limit) => dueAuctions(deps, limit),
    processBatch: async (ids) => {
      for (const closed of await closeAuctions(deps, ids)) onClosed(closed);
    },
    logger,
  });
}
