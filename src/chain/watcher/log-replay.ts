/**
 * The chain side of the operator's replay of a quarantined log (services/funds/replay-anomaly.ts):
 * the log goes through the handler that quarantined it and every handler after it, in the
 * follower's order, as a step would have taken it. Later handlers matter: a transfer into custody
 * that the promised-delivery handler gave up on was skipped by the deposit handler (it skips logs
 * quarantined earlier in the step), so its replay either delivers a promised quote or credits a
 * deposit, never both. Handlers that do not match the log leave it alone.
 */
import type { ChainLogReplay } from '../../services/funds/chain-log-replay.ts';
import type { ChainLogHandler } from './chain-watcher.ts';

export function chainLogReplay(handlers: ChainLogHandler[]): ChainLogReplay {
  return async (tx, name, log) => {
    const index = handlers.findIndex((h) => h.name === name);
    if (index < 0 || !handlers[index]!.replay) throw new Error(`this node runs no chain log handler "${name}" that can replay a log`);
    for (const handler of handlers.slice(index)) await handler.replay?.(tx, log);
  };
}
