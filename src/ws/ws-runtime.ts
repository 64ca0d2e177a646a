/**
 * The WebSocket side of one node: the session hub, the price book, the cross-node bus, and (with
 * the `dispatch` worker) the outbox dispatcher and outbox pruning. Reached per ApiContext, so the
 * route plugin and the runtime's workers share one instance without widening the context type.
 */
import type { Logger } from 'pino';
import type { ApiContext } from '../api/context.ts';
import { onOutboxCommit, pruneOutbox } from '../store/outbox.ts';
import { hubFor, type SessionHub } from './hub.ts';
import { NodeBus } from './node-bus.ts';
import { OutboxDispatcher } from './outbox-dispatcher.ts';
import { PriceBook } from './price-book.ts';
import { SessionAuditor } from './session-auditor.ts';

export interface WsRuntime {
  hub: SessionHub;
  book: PriceBook;
  bus: NodeBus;
  dispatcher: OutboxDispatcher | null;
}

const runtimes = new WeakMap<ApiContext, WsRuntime>();

export function wsRuntimeFor(context: ApiContext): WsRuntime {
  let runtime = runtimes.get(context);
  if (!runtime) {
    const hub = hubFor(context);
    const bus = new NodeBus(context.store);
    const book = new PriceBook({
      hub,
      now: () => context.service.clock.now(),
      staleMs: () => context.ws.priceStaleMs,
      publish: (key, message) => bus.publishPrice(key, message),
    });
    runtime = { hub, book, bus, dispatcher: null };
    runtimes.set(context, runtime);
  }
  return runtime;
}

/** Pruning cadence and bound: one statement deletes at most PRUNE_BATCH rows, a round at most PRUNE_ROUNDS. */
const PRUNE_INTERVAL_MS = 10_000;
const PRUNE_BATCH = 5000;
const PRUNE_ROUNDS = 20;

export async function startWsRuntime(context: ApiContext, logger: Logger, dispatch: boolean): Promise<{ stop(): Promise<void> }> {
  const runtime = wsRuntimeFor(context);
  const { bus, book } = runtime;
  const db = context.service.db;
  const dispatcher = dispatch ? new OutboxDispatcher({ db, hub: runtime.hub, logger }) : null;
  runtime.dispatcher = dispatcher;
  await bus.start({ outboxWake: () => dispatcher?.wake(), price: (message) => book.applyRemote(message) }, logger);
  // Every node tells the others about its commits, whether or not it dispatches itself.
  const unsubscribe = onOutboxCommit(db, () => {
    dispatcher?.wake();
    bus.signalOutbox();
  });
  book.start();
  await dispatcher?.start();
  const auditor = new SessionAuditor({ db, hub: runtime.hub, now: () => context.service.clock.now(), intervalMs: () => context.ws.sessionAuditMs, logger });
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
    async stop() {
      if (prune) clearInterval(prune);
      await pruning;
      await auditor.stop();
      unsubscribe();
      book.stop();
      await dispatcher?.stop();
      await bus.stop();
    },
  };
}
