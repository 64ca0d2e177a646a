/**
 * Chain follower handler for deposits: every final transfer of a listed token into custody that
 * is neither settlement nor a promised delivery is credited, once (services/funds/deposits.ts);
 * PENDING deposits of the step's blocks that the final chain does not confirm end FAILED.
 * A Transfer whose amount cannot be read, and one whose crediting keeps failing, is quarantined
 * (log-quarantine.ts) and stays PENDING; the other deposits of the step go on.
 */
import type { ServiceDeps } from '../../services/deps.ts';
import { creditDeposit, failVanishedDeposits } from '../../services/funds/deposits.ts';
import type { ChainContext } from '../chain-context.ts';
import type { ChainLogHandler } from '../watcher/chain-watcher.ts';
import { isolateLog, quarantineLog } from '../watcher/log-quarantine.ts';
import { inflowFilters, malformedInflows, parseInflows, settlementTxs } from './custody-inflows.ts';

export function depositHandler(deps: ServiceDeps, chain: ChainContext): ChainLogHandler {
  return {
    name: 'deposits',
    filters: async () => inflowFilters(chain, await deps.refdata.current()),
    async handle(tx, step) {
      const now = deps.clock.now();
      const reference = await deps.refdata.current();
      const settled = await settlementTxs(chain, step.logs);
      // Credited or quarantined: either way not a vanished deposit.
      const kept = new Set<string>();
      const logOf = new Map(step.logs.map((l) => [`${l.transactionHash.toLowerCase()}:${l.logIndex}`, l]));
      for (const log of malformedInflows(step.logs, reference, chain.custodyAddress)) {
        await quarantineLog(tx, step, 'deposits', logOf.get(`${log.transactionHash.toLowerCase()}:${log.logIndex}`)!, new Error(`Transfer log with unreadable amount data ${log.data.slice(0, 80)}`), now);
        kept.add(`${log.transactionHash.toLowerCase()}:${log.logIndex}`);
      }
      for (const inflow of parseInflows(step.logs, reference, chain.custodyAddress)) {
        if (settled.has(inflow.txHash)) continue;
        const key = `${inflow.txHash}:${inflow.logIndex}`;
        const isolated = await isolateLog(tx, step, 'deposits', logOf.get(key)!, now, async () => {
          const delivery = await tx.selectFrom('promised_deliveries').select('quote_id').where('tx_hash', '=', inflow.txHash).where('log_index', '=', inflow.logIndex).executeTakeFirst();
          if (delivery) return false;
          await creditDeposit(tx, deps, inflow, now);
          return true;
        });
        if (isolated.quarantined || isolated.value) kept.add(key);
      }
      await failVanishedDeposits(tx, step, kept, now);
    },
  };
}
