/**
 * Chain follower handler for `promised` mode: final transfers into custody that deliver an open
 * promised quote settle it (services/rfq/promised-delivery.ts); then quotes whose delivery
 * deadline is before the step's final chain time fail (services/rfq/expire-delivery.ts).
 * Runs before the deposit handler, which skips the transfers recorded here as deliveries.
 */
import type { ServiceDeps } from '../../services/deps.ts';
import { findPromisedQuote, settlePromisedDelivery } from '../../services/rfq/promised-delivery.ts';
import { expireDeliveries } from '../../services/rfq/expire-delivery.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ChainContext } from '../chain-context.ts';
import type { ChainLogHandler, ObservedLog } from '../watcher/chain-watcher.ts';
import { isolateLog } from '../watcher/log-quarantine.ts';
import { inflowFilters, parseInflows, settlementTxs, type Inflow } from './custody-inflows.ts';

export function promisedDeliveryHandler(deps: ServiceDeps, chain: ChainContext, onExpired?: (rfqIds: string[]) => void): ChainLogHandler {
  async function deliver(tx: Tx, inflow: Inflow, log: ObservedLog, now: number): Promise<void> {
    const transfer = { ...inflow, blockTimestampSecs: log.blockTimestampSecs };
    const quote = await findPromisedQuote(tx, transfer);
    if (quote) await settlePromisedDelivery(tx, deps, quote.id, transfer, now);
  }

  return {
    name: 'promised-deliveries',
    // Fresh, as the deposit handler's: a stale cache would leave a new token's deliveries out.
    filters: async () => inflowFilters(chain, await deps.refdata.reload()),
    async handle(tx, step) {
      const now = deps.clock.now();
      const reference = await deps.refdata.current();
      const settled = await settlementTxs(chain, step.logs);
      const logOf = new Map(step.logs.map((l) => [`${l.transactionHash.toLowerCase()}:${l.logIndex}`, l]));
      for (const inflow of parseInflows(step.logs, reference, chain.custodyAddress)) {
        if (settled.has(inflow.txHash)) continue;
        const log = logOf.get(`${inflow.txHash}:${inflow.logIndex}`)!;
        await isolateLog(tx, step, 'promised-deliveries', log, now, () => deliver(tx, inflow, log, now));
      }
      const expired = await expireDeliveries(tx, deps, step.toBlockTimestampSecs, now);
      if (expired.length > 0) onExpired?.(expired);
    },
    // Not a settlement transfer (that check came before the quarantine); delivery deadlines are
    // judged on the live chain time by the steps, not here.
    async replay(tx, log) {
      const reference = await deps.refdata.current();
      for (const inflow of parseInflows([log], reference, chain.custodyAddress)) await deliver(tx, inflow, log, deps.clock.now());
    },
  };
}
