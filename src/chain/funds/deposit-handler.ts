/**
 * Chain follower handler for deposits: every final transfer of a listed token into custody that
 * is neither settlement nor a promised delivery is credited, once (services/funds/deposits.ts);
 * PENDING deposits of the step's blocks that the final chain does not confirm end FAILED.
 */
import type { ServiceDeps } from '../../services/deps.ts';
import { creditDeposit, failVanishedDeposits } from '../../services/funds/deposits.ts';
import type { ChainContext } from '../chain-context.ts';
import type { ChainLogHandler } from '../watcher/chain-watcher.ts';
import { inflowFilters, parseInflows, settlementTxs } from './custody-inflows.ts';

export function depositHandler(deps: ServiceDeps, chain: ChainContext): ChainLogHandler {
  return {
    name: 'deposits',
    filters: async () => inflowFilters(chain, await deps.refdata.current()),
    async handle(tx, step) {
      const now = deps.clock.now();
      const reference = await deps.refdata.current();
      const settled = await settlementTxs(chain, step.logs);
      const credited = new Set<string>();
      for (const inflow of parseInflows(step.logs, reference, chain.custodyAddress)) {
        if (settled.has(inflow.txHash)) continue;
        const delivery = await tx.selectFrom('promised_deliveries').select('quote_id').where('tx_hash', '=', inflow.txHash).where('log_index', '=', inflow.logIndex).executeTakeFirst();
        if (delivery) continue;
        await creditDeposit(tx, deps, inflow, now);
        credited.add(`${inflow.txHash}:${inflow.logIndex}`);
      }
      await failVanishedDeposits(tx, step, credited, now);
    },
  };
}
