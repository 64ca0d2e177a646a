/**
 * Settles xchange RFQs from the adapter's `XchangeSettled` events (one per executed swap). The
 * event carries both transfers; the service settles only when they are exactly the selected
 * quote's bundle (settle-xchange.ts).
 */
import type { Logger } from 'pino';
import { decodeEventLog, toEventSelector, type Address } from 'viem';
import { xchangeAdapterAbi } from '../artifacts/index.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { settleXchange } from '../../services/settlement/settle-xchange.ts';
import type { ChainLogHandler } from './chain-watcher.ts';
import { isolateLog } from './log-quarantine.ts';

const settledEvent = xchangeAdapterAbi.find((item) => item.type === 'event' && item.name === 'XchangeSettled')!;
export const XCHANGE_SETTLED_TOPIC = toEventSelector(settledEvent as Parameters<typeof toEventSelector>[0]);

export function xchangeSettledHandler(deps: ServiceDeps, adapter: Address, logger: Logger): ChainLogHandler {
  return {
    name: 'xchange-settled',
    filters: () => [{ address: [adapter], topic0: [XCHANGE_SETTLED_TOPIC] }],
    async handle(tx, step) {
      for (const log of step.logs) {
        if (log.address.toLowerCase() !== adapter.toLowerCase() || log.topics[0] !== XCHANGE_SETTLED_TOPIC) continue;
        const { args } = decodeEventLog({ abi: xchangeAdapterAbi, eventName: 'XchangeSettled', topics: log.topics as [`0x${string}`, ...`0x${string}`[]], data: log.data });
        // A swap whose settlement keeps failing (a lock that does not cover it ...) is quarantined
        // after the step's retries, so it cannot stop the follower (log-quarantine.ts).
        const isolated = await isolateLog(tx, step, 'xchange-settled', log, deps.clock.now(), () => settleXchange(tx, deps, {
          quoteId: args.quoteId,
          txHash: log.transactionHash,
          incomingTransfer: args.incomingTransfer,
          outgoingTransfer: args.outgoingTransfer,
        }));
        const outcome = isolated.quarantined ? 'quarantined' : isolated.value;
        if (outcome === 'notSettleable') {
          // Custody's funds moved for an RFQ that already ended: the custody invariant will show it.
          logger.error({ quoteId: args.quoteId, txHash: log.transactionHash }, 'xchange swap executed for an RFQ that is no longer QUOTED; operator attention needed');
        } else if (outcome === 'quarantined') {
          logger.error({ quoteId: args.quoteId, txHash: log.transactionHash }, 'xchange settlement failed repeatedly: log quarantined for the operator');
        } else if (outcome === 'settled') {
          logger.info({ quoteId: args.quoteId, txHash: log.transactionHash }, 'xchange settlement observed');
        }
      }
    },
  };
}
