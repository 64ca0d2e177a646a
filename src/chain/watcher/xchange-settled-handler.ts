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
import type { Tx } from '../../store/transaction.ts';
import type { ChainLogHandler, ObservedLog } from './chain-watcher.ts';
import { isolateLog } from './log-quarantine.ts';

const settledEvent = xchangeAdapterAbi.find((item) => item.type === 'event' && item.name === 'XchangeSettled')!;
export const XCHANGE_SETTLED_TOPIC = toEventSelector(settledEvent as Parameters<typeof toEventSelector>[0]);

export function xchangeSettledHandler(deps: ServiceDeps, adapter: Address, logger: Logger): ChainLogHandler {
  const ours = (log: ObservedLog) => log.address.toLowerCase() === adapter.toLowerCase() && log.topics[0] === XCHANGE_SETTLED_TOPIC;
  const settle = (tx: Tx, log: ObservedLog) => {
    const { args } = decodeEventLog({ abi: xchangeAdapterAbi, eventName: 'XchangeSettled', topics: log.topics as [`0x${string}`, ...`0x${string}`[]], data: log.data });
    return { quoteId: args.quoteId, settled: () => settleXchange(tx, deps, { quoteId: args.quoteId, txHash: log.transactionHash, incomingTransfer: args.incomingTransfer, outgoingTransfer: args.outgoingTransfer }) };
  };
  const report = (quoteId: string, txHash: string, outcome: string) => {
    if (outcome === 'notSettleable') {
      // Custody's funds moved for an RFQ that already ended: the custody invariant will show it.
      logger.error({ quoteId, txHash }, 'xchange swap executed for an RFQ that is no longer QUOTED; operator attention needed');
    } else if (outcome === 'quarantined') {
      logger.error({ quoteId, txHash }, 'xchange settlement failed repeatedly: log quarantined for the operator');
    } else if (outcome === 'settled') {
      logger.info({ quoteId, txHash }, 'xchange settlement observed');
    }
  };

  return {
    name: 'xchange-settled',
    filters: () => [{ address: [adapter], topic0: [XCHANGE_SETTLED_TOPIC] }],
    async handle(tx, step) {
      for (const log of step.logs) {
        if (!ours(log)) continue;
        const { quoteId, settled } = settle(tx, log);
        // A swap whose settlement keeps failing (a lock that does not cover it ...) is quarantined
        // after the step's retries, so it cannot stop the follower (log-quarantine.ts).
        const isolated = await isolateLog(tx, step, 'xchange-settled', log, deps.clock.now(), settled);
        report(quoteId, log.transactionHash, isolated.quarantined ? 'quarantined' : isolated.value);
      }
    },
    async replay(tx, log) {
      if (!ours(log)) return;
      const { quoteId, settled } = settle(tx, log);
      report(quoteId, log.transactionHash, await settled());
    },
  };
}
