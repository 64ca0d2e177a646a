/**
 * Chain follower handler for `promised` mode: final transfers into custody that deliver an open
 * promised quote settle it (services/rfq/promised-delivery.ts); then quotes whose delivery
 * deadline is before the step's final chain time fail (services/rfq/expire-delivery.ts).
 * Runs before the deposit handler, which skips the transfers recorded here as deliveries.
 */
import type { ServiceDeps } from '../../services/deps.ts';
import { findPromisedQuote, settlePromisedDelivery } from '../../services/rfq/promised-delivery.ts';
import { expireDeliveries } from '../../services/rfq/expire-delivery.ts';
import type { ChainContext } from '../chain-context.ts';
import type { ChainLogHandler } from '../watcher/chain-watcher.ts';
import { isolateLog } from '../watcher/log-quarantine.ts';
import { inflowFilters, parseInflows, settlementTxs } from './custody-inflows.ts';

export function promisedDeliveryHandler(deps: ServiceDeps, chain: ChainContext, onExpired?: (rfqIds: string[]) => void): ChainLogHandler {
  return {
    name: 'promised-deliveries',
    filters: async () => inflowFilters(chain, await deps.refdata.current()),
    async handle(tx, step) {
      const now = deps.clock.now();
      const reference = await deps.refdata.current();
      const settled = await settlementTxs(chain, step.logs);
      const logOf = new Map(step.logs.map((l) => [`${l.transactionHash.toLowerCase()}:${l.logIndex}`, l]));
      for (const inflow of parseInflows(step.logs, reference, chain.custodyAddress)) {
        if (settled.has(inflow.txHash)) continue;
        const log = logOf.get(`${inflow.txHash}:${inflow.logIndex}`)!;
        const transfer = { ...inflow, blockTimestampSecs: log.blockTimestampSecs };
        await isolateLog(tx, step, 'promised-deliveries', log, now, async () => {
          const quote = await findPromisedQuote(tx, transfer);
          if (quote) await settlePromisedDelivery(tx, deps, quote.id, transfer, now);
        });
      }
      const expired = await expireDeliveries(tx, deps, step.toBlockTimestampSecs, now);
      if (expired.length > 0) onExpired?.(expired);
    },
  };
}
