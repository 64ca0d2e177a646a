/**
 * The port through which the operator's replay of a quarantined chain log (replay-anomaly.ts)
 * reaches the chain follower's handlers: the chain adapter sets it (runtime/chain-wiring.ts); a
 * node without a chain has none and replays nothing.
 */
import type { Tx } from '../../store/transaction.ts';

/** The anomaly kind of a quarantined chain log (log-quarantine.ts writes it). */
export const QUARANTINED_KIND = 'HANDLER_FAILED';

/** A quarantined log as stored in its anomaly's `detail.log`, with its transaction hash. */
export interface QuarantinedLog {
  address: `0x${string}`;
  topics: Array<`0x${string}`>;
  data: `0x${string}`;
  transactionHash: `0x${string}`;
  blockNumber: number;
  logIndex: number;
  blockTimestampSecs: number;
}

/** Re-runs `handler`'s work for `log` inside `tx`; throws when it fails again. */
export type ChainLogReplay = (tx: Tx, handler: string, log: QuarantinedLog) => Promise<void>;
