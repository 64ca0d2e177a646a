/**
 * Chain follower handler for deposits: every final transfer of a listed token into custody that
 * is neither settlement nor a promised delivery is credited, once (services/funds/deposits.ts);
 * PENDING deposits of the step's blocks that the final chain does not confirm end FAILED.
 * A Transfer whose amount cannot be read, and one whose crediting keeps failing, is quarantined
 * (log-quarantine.ts) and stays PENDING; so is one an earlier handler of the step quarantined (the
 * promised-delivery handler): its replay decides whether it is a delivery or a deposit. The other
 * deposits of the step go on.
 */
import type { ServiceDeps } from '../../services/deps.ts';
import { creditDeposit, failVanishedDeposits } from '../../services/funds/deposits.ts';
import type { Tx } from '../../store/transaction.ts';
import type { ChainContext } from '../chain-context.ts';
import type { ChainLogHandler } from '../watcher/chain-watcher.ts';
import { isolateLog, openQuarantines, quarantineLog } from '../watcher/log-quarantine.ts';
import { inflowFilters, malformedInflows, parseInflows, settlementTxs, type Inflow } from './custody-inflows.ts';

const unreadable = (data: string) => new Error(`Transfer log with unreadable amount data ${data.slice(0, 80)}`);

export function depositHandler(deps: ServiceDeps, chain: ChainContext): ChainLogHandler {
  /** Credits `inflow` unless it delivered a promised quote; true when credited (or already). */
  async function credit(tx: Tx, inflow: Inflow, now: number): Promise<boolean> {
    const delivery = await tx.selectFrom('promised_deliveries').select('quote_id').where('tx_hash', '=', inflow.txHash).where('log_index', '=', inflow.logIndex).executeTakeFirst();
    if (delivery) return false;
    await creditDeposit(tx, deps, inflow, now);
    return true;
  }

  return {
    name: 'deposits',
    // Asked of the store, not the cache: a cache older than a token's listing would leave that
    // token's transfers out of the step, and the cursor would move past them for good.
    filters: async () => inflowFilters(chain, await deps.refdata.reload()),
    async handle(tx, step) {
      const now = deps.clock.now();
      const reference = await deps.refdata.current();
      const settled = await settlementTxs(chain, step.logs);
      // Credited or quarantined: either way not a vanished deposit.
      const kept = await openQuarantines(tx, step.logs);
      const logOf = new Map(step.logs.map((l) => [`${l.transactionHash.toLowerCase()}:${l.logIndex}`, l]));
      for (const log of malformedInflows(step.logs, reference, chain.custodyAddress)) {
        await quarantineLog(tx, step, 'deposits', logOf.get(`${log.transactionHash.toLowerCase()}:${log.logIndex}`)!, unreadable(log.data), now);
        kept.add(`${log.transactionHash.toLowerCase()}:${log.logIndex}`);
      }
      for (const inflow of parseInflows(step.logs, reference, chain.custodyAddress)) {
        const key = `${inflow.txHash}:${inflow.logIndex}`;
        if (settled.has(inflow.txHash) || kept.has(key)) continue;
        const isolated = await isolateLog(tx, step, 'deposits', logOf.get(key)!, now, () => credit(tx, inflow, now));
        if (isolated.quarantined || isolated.value) kept.add(key);
      }
      await failVanishedDeposits(tx, step, kept, now);
    },
    // A quarantined transfer was already found not to be settlement: that check comes before
    // any handler work, so the replay does not repeat it.
    async replay(tx, log) {
      const reference = await deps.refdata.current();
      if (malformedInflows([log], reference, chain.custodyAddress).length > 0) throw unreadable(log.data);
      for (const inflow of parseInflows([log], reference, chain.custodyAddress)) await credit(tx, inflow, deps.clock.now());
    },
  };
}
