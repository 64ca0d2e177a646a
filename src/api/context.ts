/**
 * What the HTTP and WebSocket adapters are given by the runtime: the service dependencies and
 * the per-node helpers (credential cache, replay claims, rate limiter, metrics).
 */
import type { ServiceDeps } from '../services/deps.ts';
import type { AuthenticateDeps, AuthContext } from '../services/auth/authenticate-request.ts';
import type { SharedRateLimiter } from './rate-limiter.ts';
import type { HttpMetrics } from './metrics.ts';
import type { Store } from '../store/database.ts';
import type { SpenderCheck } from '../services/admin/makers.ts';
import type { ExtraInvariant } from '../services/admin/invariants.ts';
import type { ChainContext } from '../chain/chain-context.ts';
import type { WsSettings } from '../ws/settings.ts';
import type { V0RouteContext } from './v0/v0.routes.ts';

export interface ApiContext {
  service: ServiceDeps;
  authentication: AuthenticateDeps;
  store: Store;
  adminToken: string;
  rateLimiter: SharedRateLimiter;
  rateLimit: { perKeyPerSec: number; perSourcePerSec: number };
  metrics: HttpMetrics;
  /** True in the embedded stack (devnet-only admin calls are allowed). */
  embedded: boolean;
  /** Set once the node is draining; readiness then fails so load balancers stop sending. */
  draining: { value: boolean };
  /** The chain this node settles on; null when none is configured (tests of the auction alone). */
  chain: ChainContext | null;
  /** Verifies a maker's Permit2 spender against the wrapper factory (chain adapter), when present. */
  spenderCheck?: SpenderCheck;
  /** Invariants contributed by adapters (e.g. on-chain custody against the ledger). */
  extraInvariants: ExtraInvariant[];
  /** WebSocket limits (RFQ_WS_* settings). */
  ws: WsSettings;
  /** Legacy `/v0`: its use-case dependencies (venue port, JWT key) and the default layout. */
  v0: V0RouteContext;
  /** Observes every auction this node closes (benchmarks measure lateness through it). */
  auctionCloses?: (closed: { rfqId: string; outcome: string; auctionEndsAt: number; closedAt: number }) => void;
}

export type RouteAuth = 'none' | 'hmac' | 'maker' | 'admin';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
    rawBody: string;
  }
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** The handler claims the request timestamp inside its own write (see submit-quote). */
    deferTimestampClaim?: boolean;
  }
}
