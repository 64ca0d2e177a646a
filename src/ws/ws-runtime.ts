/**
 * The WebSocket side of one node: the session hub, the price book, the cross-node bus (built once
 * by the runtime, `createWsParts`), and, with the `dispatch` worker, the outbox dispatcher and
 * outbox pruning (`startWsRuntime`).
 */
import type { Logger } from 'pino';
import type { Store } from '../store/database.ts';
import { onOutboxCommit, pruneOutbox } from '../store/outbox.ts';
import { PriceMarkRecorder } from './price-mark-recorder.ts';
import { SessionHub } from './hub.ts';
import { NodeBus } from './node-bus.ts';
import { OutboxDispatcher } from './outbox-dispatcher.ts';
import { PriceBook } from './price-book.ts';
import type { WsContext } from './ws-context.ts';
import { SessionAuditor } from './session-auditor.ts';
import { SessionPresence } from './presence.ts';

export interface WsParts {
  hub: SessionHub;
  book: PriceBook;
  bus: NodeBus;
  presence: SessionPresence;
}

/** `priceStaleMs` is read on every use, so a replaced setting applies at once. */
export function createWsParts(store: Store, now: () => number, priceStaleMs: () => number): WsParts {
  const hub = new SessionHub();
  const bus = new NodeBus(store);
  const book = new PriceBook({ hub, now, staleMs: priceStaleMs, publish: (key, message) => bus.publishPrice(key, message) });
  return { hub, book, bus, presence: new SessionPresence(bus.nodeId) };
}

/** Pruning cadence and bound: one statement deletes at most PRUNE_BATCH rows, a round at most PRUNE_ROUNDS. */
const PRUNE_INTERVAL_MS = 10_000;
const PRUNE_BATCH = 5000;
const PRUNE_ROUNDS = 20;

export async function startWsRuntime(context: WsContext, logger: Logger, dispatch: boolean): Promise<{ stop(): Promise<void>; dispatcherCursor(): number | null }> {
  const { bus, book, hub } = context;
  const db = context.service.db;
  const dispatcher = dispatch ? new OutboxDispatcher({ db, hub, logger }) : null;
  await bus.start({ outboxWake: () => dispatcher?.wake(), price: (message) => book.applyRemote(message) }, logger);
  // Every node tells the others about its commits, whether or not it dispatches itself. Rows the
  // writer got back go to this node's sessions at once; without them the dispatcher reads.
  const unsubscribe = onOutboxCommit(db, (events) => {
    if (events) dispatcher?.committed(events);
    else dispatcher?.wake();
    bus.signalOutbox();
  });
  book.start();
  const marks = new PriceMarkRecorder({ db, book, now: () => context.service.clock.now(), logger });
  marks.start();
  await dispatcher?.start();
  await context.presence.start({ service: context.service, heartbeatTimeoutMs: () => context.ws.heartbeatTimeoutMs, logger });
  const auditor = new SessionAuditor({ db, hub, now: () => context.service.clock.now(), intervalMs: () => context.ws.sessionAuditMs, logger });
  auditor.start();
  let pruning: Promise<void> | null = null;
  const prune = dispatch
    ? setInterval(() => {
        pruning ??= (async () => {
          const before = context.service.clock.now() - context.ws.outboxRetentionMs;
          for (let round = 0; round < PRUNE_ROUNDS; round++) if ((await pruneOutbox(db, before, PRUNE_BATCH)) < PRUNE_BATCH) break;
        })()
          .catch((error: unknown) => logger.warn({ err: error }, 'pruning the outbox failed'))
          .finally(() => {
            pruning = null;
          });
      }, PRUNE_INTERVAL_MS)
    : null;
  prune?.unref();
  return {
    dispatcherCursor: () => dispatcher?.position ?? null,
    async stop() {
      if (prune) clearInterval(prune);
      await pruning;
      await auditor.stop();
      await context.presence.stop();
      unsubscribe();
      await marks.stop();
      book.stop();
      await dispatcher?.stop();
      await bus.stop();
    },
  };
}
