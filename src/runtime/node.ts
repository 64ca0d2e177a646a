/**
 * One service node: store (opened and migrated), dependencies, HTTP/WS app, background workers.
 * The embedded stack and the tests both start nodes through here.
 */
import { randomBytes } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { FastifyInstance } from 'fastify';
import { openStore, type Store, type StoreLocation } from '../store/database.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { inBackgroundLane } from '../store/work-lane.ts';
import { systemClock, type Clock, type ServiceDeps } from '../services/deps.ts';
import { buildServiceDeps } from './service-deps.ts';
import type { WsSettings } from '../ws/ws-context.ts';
import { WS_DEFAULTS } from './config.ts';
import { buildNodeContext, type NodeContext } from './node-context.ts';
import type { VenueFaucet } from '../api/context.ts';
import { buildApp, defaultHttpLimits, type HttpLimits } from './build-app.ts';
import { startWorkers, type Workers } from './workers.ts';
import { AuctionThread, type AuctionThreadData } from './auction-thread.ts';
import { outboxCommitted } from '../store/outbox.ts';

/** RFQ_VENUE_WEIGHT_PER_MIN's default: three quarters of the venue's public limit of 1,200. */
const DEFAULT_VENUE_WEIGHT_PER_MIN = 900;

/** The auction thread's own connections: its two drainers, its sweep and its reference-data refresh, so none waits for another. */
const AUCTION_THREAD_POOL_SIZE = 4;
import { connectChainContext, type ChainSettings } from '../chain/chain-context.ts';
import { wireChain, type ChainWiring } from './chain-wiring.ts';
import { deriveJwtKey } from '../services/v0/jwt.ts';
import { defaultV0Settings, noVenue, type V0Settings } from '../services/v0/venue-port.ts';
import { watchBuilderFunding, type BuilderFundingWatch } from './builder-funding.ts';
import type { V0Deps } from '../services/v0/v0-deps.ts';
import type { V0Layout } from '../services/v0/create-order.ts';
import { wireOmnibus, type V0VenueSettings } from '../venue/omnibus/omnibus-wiring.ts';
import type { OmnibusWorker } from '../venue/omnibus/omnibus-worker.ts';
import { VenueClient } from '../venue/venue-client.ts';
import { VenueBudget } from '../venue/venue-budget.ts';
import { registerVenueBudgetMetrics } from './venue-budget-metrics.ts';
import { wirePerpExecutor, type PerpExecutionOptions } from './perp-wiring.ts';
import type { VenueNetwork } from '../domain/perp/types.ts';
import type { Address } from 'viem';

export interface NodeOptions {
  store: StoreLocation | Store;
  host?: string;
  port?: number;
  adminToken: string;
  /** `/metrics` requires this bearer token when set (RFQ_METRICS_TOKEN). */
  metricsToken?: string | null;
  secretKey: string;
  siweDomain?: string;
  chainId?: number;
  rateLimit?: { perKeyPerSec: number; perSourcePerSec: number };
  ws?: Partial<WsSettings>;
  http?: Partial<HttpLimits>;
  workers?: ReadonlySet<string>;
  /**
   * The `auctions` worker on its own thread and event loop (auction-thread.ts; RFQ_AUCTIONS_THREAD).
   * Only on PostgreSQL and with the system clock (a thread cannot share PGlite or a test clock):
   * otherwise the closer stays on the node's loop.
   */
  auctionsThread?: boolean;
  embedded?: boolean;
  logLevel?: string;
  logger?: Logger;
  clock?: Clock;
  /** The chain to settle on (anvil in the embedded stack and chain tests); none: nothing settles. */
  chain?: ChainSettings;
  /** Legacy `/v0`: the omnibus venue account (none: venue operations are SERVICE_UNAVAILABLE). */
  v0?: { venue?: V0VenueSettings; defaultLayout?: V0Layout; settings?: Partial<V0Settings> };
  /** The perp venue (the simulator in the embedded stack and perp tests); none: perp instruments cannot be registered or traded. */
  venue?: VenueSettings;
  /** The embedded stack's venue simulator: its URL is published and its faucet served (embedded only). */
  embeddedVenue?: { url: string; faucet: VenueFaucet };
  /** Perp execution timings (RFQ_PERP_RESOLVE_WINDOW_MS ...); used when `venue` is set. */
  perpExecution?: PerpExecutionOptions;
  /**
   * Production checks of the venue: the builder account's funding is read every
   * `builderFundingIntervalMs` and the node is not ready below the venue's minimum. Off when absent.
   */
  venueChecks?: { builderFundingIntervalMs: number };
  /** RFQ_VENUE_WEIGHT_PER_MIN: the venue request weight the nodes spend per minute, perps and `/v0` together (default 900). */
  venueWeightPerMin?: number;
}

export interface VenueSettings {
  url: string;
  network: VenueNetwork;
  /** Lower-case 0x address; null: perp quotes carry no builder fee. */
  builderAddress: Address | null;
  requestTimeoutMs?: number;
  metaCacheMs?: number;
}

export interface RunningNode {
  app: FastifyInstance;
  context: NodeContext;
  url: string;
  store: Store;
  /** The `/v0` omnibus worker, when a venue is configured and this node runs the `v0` worker. */
  v0Worker: OmnibusWorker | null;
  /** The auction-close thread, when this node's closer runs on one (`auctionsThread` on PostgreSQL). */
  auctionThread: AuctionThread | null;
  /**
   * Resolves once a pass of the named worker begun after the call has ended (Workers.afterPass),
   * the auction closer's also on its thread; fails when this node does not run the worker.
   */
  afterPass(worker: string): Promise<void>;
  close(): Promise<void>;
  /** While `close` runs: the part it is waiting for (a stop that hangs says where; the simulation reports it). */
  readonly closing: string | null;
}

export function generateSecretKey(): string {
  return randomBytes(32).toString('base64');
}

export async function startNode(options: NodeOptions): Promise<RunningNode> {
  const logger = options.logger ?? pino({ level: options.logLevel ?? 'warn', redact: ['req.headers.authorization', 'req.headers["service-api-signature"]', '*.secret'] });
  const store = 'db' in options.store ? options.store : await openStore(options.store);
  await migrateToLatest(store.db);
  const clock = options.clock ?? systemClock;
  // One budget for the node's perp and `/v0` venue calls, shared with the other nodes through the
  // store (an embedded store has one node: its counts need no sharing).
  const venueBudget = options.venue || options.v0?.venue ? new VenueBudget({ db: store.kind === 'postgres' ? store.db : null, weightPerMin: options.venueWeightPerMin ?? DEFAULT_VENUE_WEIGHT_PER_MIN }) : null;
  const venueClient = options.venue ? new VenueClient({ ...options.venue, now: () => clock.now(), budget: venueBudget }) : null;
  const service: ServiceDeps = buildServiceDeps(store.db, { clock, secretKey: options.secretKey, ...(options.siweDomain ? { siweDomain: options.siweDomain } : {}), ...(options.chainId ? { chainId: options.chainId } : {}), venue: venueClient });
  await service.refdata.reload();
  const omnibus = options.v0?.venue ? wireOmnibus(options.v0.venue, () => clock.now(), venueBudget) : null;
  const v0Deps: V0Deps = { service, venue: omnibus?.venue ?? noVenue, jwtKey: deriveJwtKey(options.secretKey), settings: { ...defaultV0Settings, ...options.v0?.settings } };
  const context = buildNodeContext({
    service,
    store,
    adminToken: options.adminToken,
    metricsToken: options.metricsToken ?? null,
    rateLimit: options.rateLimit ?? { perKeyPerSec: 100, perSourcePerSec: 1000 },
    ws: { ...WS_DEFAULTS, ...options.ws },
    embedded: options.embedded ?? false,
    chain: options.chain ? await connectChainContext(options.chain) : null,
    v0: { deps: v0Deps, defaultLayout: options.v0?.defaultLayout ?? 'flat' },
  });
  if (venueBudget) registerVenueBudgetMetrics(context.metrics.registry, venueBudget);
  if (options.embedded && options.embeddedVenue) {
    context.venueFaucet = options.embeddedVenue.faucet;
    context.venuePublicUrl = options.embeddedVenue.url;
  }
  const workerNames = options.workers ?? new Set(['auctions', 'settlement', 'dispatch', 'withdrawals', 'v0']);
  let v0Worker: OmnibusWorker | null = null;
  if (omnibus) {
    const attached = omnibus.attach(v0Deps, logger);
    context.extraInvariants.push(attached.invariant);
    if (workerNames.has('v0')) v0Worker = attached.worker;
  }
  const chainWiring: ChainWiring | null = context.chain ? wireChain(context, context.chain, logger) : null;
  // Started first: its module loading overlaps the app's build.
  const threadUrl = options.auctionsThread && workerNames.has('auctions') && !options.clock ? store.url : undefined;
  const threadStarting = threadUrl ? startAuctionThread(threadUrl, options, context, logger) : null;
  threadStarting?.catch(() => undefined); // awaited below; a failure before then must not be unhandled
  let app: FastifyInstance;
  let auctionThread: AuctionThread | null;
  let workers: Workers;
  let address: string;
  let builderFunding: BuilderFundingWatch | null = null;
  try {
    app = await buildApp(context, logger, { ...defaultHttpLimits, ...options.http });
    const perp = venueClient && options.venue ? wirePerpExecutor(service, venueClient, options.venue, options.perpExecution) : null;
    auctionThread = await threadStarting;
    // Background work runs in its own database lane: request load cannot take all its connections (work-lane.ts).
    const inProcess = auctionThread ? new Set([...workerNames].filter((name) => name !== 'auctions')) : workerNames;
    workers = await inBackgroundLane(() => startWorkers(context, inProcess, logger, chainWiring, perp));
    if (auctionThread) {
      const thread = auctionThread;
      service.hooks.auctionScheduled = (id, at) => thread.schedule(id, at);
      (context.notReadyReasons ??= []).push(() => (thread.running ? null : 'the auction-close thread is not running (restarting)'));
    }
    v0Worker?.start();
    if (venueClient && venueClient.builderAddress && options.venueChecks) {
      builderFunding = watchBuilderFunding(context, { builder: venueClient.builderAddress, read: (builder) => venueClient.perpAccountValue(builder), intervalMs: options.venueChecks.builderFundingIntervalMs });
    }
    address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  } catch (error) {
    // A thread left running would keep the process alive after the failed start.
    await (await threadStarting?.catch(() => null))?.stop();
    throw error;
  }
  let closed = false;
  let closing: string | null = null;
  return {
    app,
    context,
    url: address.replace('[::1]', '127.0.0.1'),
    store,
    v0Worker,
    auctionThread,
    get closing() {
      return closing === 'workers' && workers.stopping ? `workers: ${workers.stopping}` : closing;
    },
    async afterPass(worker) {
      const pass = worker === 'auctions' && auctionThread ? auctionThread.settled() : workers.afterPass(worker);
      if (!pass) throw new Error(`this node does not run the ${worker} worker`);
      await pass;
    },
    async close() {
      if (closed) return;
      closed = true;
      context.draining.value = true;
      builderFunding?.stop();
      closing = 'http (requests and sockets in flight)';
      await app.close();
      closing = 'v0 worker';
      await v0Worker?.stop();
      closing = 'workers';
      await workers.stop();
      closing = 'auction thread';
      await auctionThread?.stop();
      context.rateLimiter.close();
      venueBudget?.close();
      closing = 'store';
      await store.close();
      closing = null;
    },
  };
}

/** The auction closer on its own thread, reacting on this node's loop to what its closes did. */
function startAuctionThread(databaseUrl: string, options: NodeOptions, context: NodeContext, logger: Logger): Promise<AuctionThread> {
  const service = context.service;
  const { durableBlock: _local, ...chain } = options.chain ?? { durableBlock: null };
  return inBackgroundLane(() =>
    AuctionThread.start(
      {
        databaseUrl,
        poolSize: AUCTION_THREAD_POOL_SIZE,
        secretKey: options.secretKey,
        ...(options.siweDomain ? { siweDomain: options.siweDomain } : {}),
        ...(options.chainId ? { chainId: options.chainId } : {}),
        chain: options.chain ? (chain as AuctionThreadData['chain']) : null,
        logLevel: logger.level,
      },
      {
        closed: (closed) => context.auctionCloses?.(closed),
        // The hooks as wired now (settlement expiry), in the background lane as any worker's.
        selected: (rfqId, deadlineSecs) => inBackgroundLane(() => service.hooks.quoteSelected(rfqId, deadlineSecs)),
        outbox: () => inBackgroundLane(() => outboxCommitted(service.db)),
      },
      logger,
    ),
  );
}
