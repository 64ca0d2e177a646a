/** Background work a node runs, each switchable per node (RFQ_WORKERS). */
import type { Logger } from 'pino';
import { Counter, Gauge } from 'prom-client';
import type { NodeContext } from './node-context.ts';
import { inBackgroundLane } from '../store/work-lane.ts';
import { auctionCloser } from './auction-closer.ts';
import { expireSettlement, overdueSettlements } from '../services/rfq/expire-settlement.ts';
import { DeadlineWorker } from './deadline-worker.ts';
import { ChainWatcher } from '../chain/watcher/chain-watcher.ts';
import type { ChainWiring } from './chain-wiring.ts';
import { startWsRuntime } from '../ws/ws-runtime.ts';
import { pruneChallenges } from '../services/auth/create-challenge.ts';
import { pruneLoginNonces } from '../services/v0/login.ts';
import { DepositHeadScanner } from '../chain/funds/deposit-head-scanner.ts';
import { CustodyBroadcaster } from '../chain/custody/custody-broadcaster.ts';
import type { PerpWiring } from './perp-wiring.ts';
import { startStoreMaintenance } from './store-maintenance.ts';
import { startBusinessMetrics } from './business-metrics.ts';

/**
 * A halted chain follower (a reorganisation deeper than the confirmation depth) stops deposits,
 * settlements and chain-time expiry: the node says so everywhere an operator looks, `/readyz`
 * (not ready, with the reason), `GET /admin/v1/invariants` (`chainFollowerHalted`) and the gauge
 * `rfq_chain_follower_halted`.
 */
function makeHaltLoud(context: NodeContext, watcher: ChainWatcher): void {
  const reason = () => (watcher.halted ? `chain follower halted: ${watcher.halted}` : null);
  (context.notReadyReasons ??= []).push(reason);
  context.extraInvariants.push(async () => (watcher.halted ? [{ check: 'chainFollowerHalted', detail: { reason: watcher.halted } }] : []));
  new Gauge({
    name: 'rfq_chain_follower_halted',
    help: '1 when the chain follower stopped on a reorganisation deeper than its confirmation depth',
    registers: [context.metrics.registry],
    collect() {
      this.set(watcher.halted ? 1 : 0);
    },
  });
}

export interface Workers {
  stop(): Promise<void>;
  /** While `stop` runs: the part it is waiting for. */
  readonly stopping: string | null;
  /**
   * Resolves once a pass of the named worker begun after the call has ended: a deadline
   * worker's sweep with what it found (`auctions`, `settlement-expiry`), the chain follower's
   * step (`chain-follower`), a chain loop's pass (`xchange-executor`); null when this node does
   * not run it. Tests wait on it to show that something did not happen.
   */
  afterPass(worker: string): Promise<void> | null;
}

export async function startWorkers(context: NodeContext, enabled: ReadonlySet<string>, logger: Logger, chainWiring: ChainWiring | null = null, perp: PerpWiring | null = null): Promise<Workers> {
  const deps = context.service;
  const timers: NodeJS.Timeout[] = [];
  const workers: DeadlineWorker[] = [];
  // Replay claims only matter inside the skew window; older ones are dead weight.
  const prune = setInterval(() => {
    const horizon = deps.clock.now() - 2 * deps.auth.timestampSkewMs;
    context.authentication.claims.prune(horizon).catch((error: unknown) => logger.warn({ err: error }, 'pruning replay claims failed'));
    // Expired sign-in challenges can no longer sign anyone in (bounded: one batch per round).
    pruneChallenges(deps.db, deps.clock.now()).catch((error: unknown) => logger.warn({ err: error }, 'pruning sign-in challenges failed'));
    // `/v0` login nonces past the time a replay could still be accepted (login.ts).
    pruneLoginNonces(context.v0.deps).catch((error: unknown) => logger.warn({ err: error }, 'pruning /v0 login nonces failed'));
  }, 10_000);
  prune.unref();
  timers.push(prune);
  // PGlite has no autovacuum: the node does its work (a no-op on PostgreSQL).
  const maintenance = startStoreMaintenance(context.store, logger);

  if (enabled.has('auctions')) {
    const auctions = auctionCloser(deps, (closed) => context.auctionCloses?.(closed), logger);
    // Called from request handling: the close timer must still run in the background lane.
    deps.hooks.auctionScheduled = (id, at) => inBackgroundLane(() => auctions.schedule(id, at));
    auctions.start();
    workers.push(auctions);
  }
  if (enabled.has('settlement')) {
    const expiry = new DeadlineWorker({
      name: 'settlement-expiry',
      sweepIntervalMs: 1000,
      concurrency: 1,
      batchSize: 50,
      findDue: (limit) => overdueSettlements(deps, limit),
      processBatch: async (ids) => {
        // Each RFQ on its own: one whose expiry fails (a ledger defect the lock check refuses)
        // must not hold back the later deadlines, which every sweep would otherwise list behind it.
        for (const id of ids) {
          try {
            await expireSettlement(deps, id);
          } catch (error) {
            logger.error({ err: error, rfqId: id }, 'settlement expiry failed; the sweep retries it');
          }
        }
      },
      logger,
    });
    // Deadlines are whole seconds and inclusive: the RFQ fails once the clock is past the second.
    deps.hooks.quoteSelected = (id, deadlineSecs) => inBackgroundLane(() => expiry.schedule(id, (deadlineSecs + 1) * 1000 + 5));
    expiry.start();
    workers.push(expiry);
  }
  // Perp execution runs with settlement: it is how a perp RFQ settles.
  if (enabled.has('settlement') && perp) workers.push(perp.start(logger));
  // The chain follower settles, credits deposits and confirms payouts: it runs with settlement.
  let chainWatcher: ChainWatcher | null = null;
  if (enabled.has('settlement') && context.chain && chainWiring) {
    const expiry = workers.find((w) => w.name === 'settlement-expiry');
    // On-chain deadlines pass when final chain time does: each committed step may make some due.
    const onStep = () => void expiry?.sweep();
    chainWatcher = new ChainWatcher({ db: deps.db, chain: context.chain, handlers: chainWiring.handlers, logger, now: () => deps.clock.now(), onStep });
    makeHaltLoud(context, chainWatcher);
    chainWatcher.start();
    for (const loop of chainWiring.background) loop.start();
  }
  // funds: PENDING deposits at the head (with the follower) and the custody broadcaster.
  const headScanner = enabled.has('settlement') && context.chain ? new DepositHeadScanner(deps, context.chain, logger) : null;
  headScanner?.start();
  const broadcaster = enabled.has('withdrawals') && context.chain ? new CustodyBroadcaster({ deps, chain: context.chain, logger }) : null;
  broadcaster?.start();
  // ws: cross-node bus and price book always; outbox -> sessions and pruning with `dispatch`.
  const ws = await startWsRuntime(context, logger, enabled.has('dispatch'));
  new Counter({
    name: 'rfq_price_crossings_total',
    help: "Times an instrument's consolidated top of book was crossed across makers and uncrossed by setting the older side aside",
    registers: [context.metrics.registry],
    collect() {
      this.reset();
      this.inc(context.book.crossings);
    },
  });
  const business = await startBusinessMetrics(deps, context.metrics.registry, logger, () => ws.dispatcherCursor());
  let stopping: string | null = null;
  return {
    get stopping() {
      return stopping;
    },
    afterPass(worker) {
      const deadlines = workers.find((w) => w.name === worker);
      if (deadlines) return inBackgroundLane(() => deadlines.settled());
      if (worker === 'chain-follower') return chainWatcher?.afterStep() ?? null;
      const loop = chainWatcher ? chainWiring?.background.find((l) => l.name === worker) : undefined;
      return loop?.afterPass() ?? null;
    },
    async stop() {
      for (const timer of timers) clearInterval(timer);
      stopping = 'ws (sessions, presence, dispatcher)';
      await business.stop();
      await ws.stop(); // before the store closes
      stopping = 'chain follower';
      if (chainWatcher) await Promise.all(chainWiring!.background.map((loop) => loop.stop()));
      await chainWatcher?.stop();
      stopping = 'deposit head scanner and custody broadcaster';
      await headScanner?.stop();
      await broadcaster?.stop();
      stopping = `deadline workers (${workers.map((w) => w.name).join(', ')})`;
      await Promise.all(workers.map((w) => w.stop()));
      stopping = 'perp executor';
      await perp?.stop();
      stopping = 'store maintenance';
      await maintenance.stop();
      stopping = null;
    },
  };
}
