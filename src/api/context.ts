/**
 * What the HTTP adapter is given by the runtime (src/runtime/node-context.ts builds it): the
 * service dependencies and the per-node helpers (credential cache, replay claims, rate limiter,
 * metrics). Chain facts and the devnet faucet arrive as plain data and a function, so no route
 * imports another adapter.
 */
import type { ServiceDeps } from '../services/deps.ts';
import type { AuthenticateDeps, AuthContext } from '../services/auth/authenticate-request.ts';
import type { SharedRateLimiter } from './rate-limiter.ts';
import type { HttpMetrics } from './metrics.ts';
import type { Store } from '../store/database.ts';
import type { SpenderCheck } from '../services/admin/makers.ts';
import type { ExtraInvariant } from '../services/admin/invariants.ts';
import type { V0RouteContext } from './v0/v0.routes.ts';

/** The chain facts GET /v1/rfq/network publishes (a subset of the chain adapter's context). */
export interface ChainFacts {
  chainId: number;
  custodyAddress: string;
  settings: {
    permit2Address: string;
    wrapperFactoryAddress: string;
    xchangeAdapterAddress: string | null;
    /** Embedded devnet only: the RPC URL published to integrators. */
    publicRpcUrl: string | null;
  };
}

/** Mints test tokens on the embedded devnet and answers the mined transaction hash. */
export type DevnetFaucet = (mint: { token: `0x${string}`; to: `0x${string}`; raw: bigint }) => Promise<string>;

/**
 * Credits an address at the embedded venue simulator (perp margin in USDC, or a spot token; amount
 * a decimal string in the token's units) and resolves once applied. Throws a ServiceError for a
 * credit the simulator refuses.
 */
export type VenueFaucet = (credit: { address: `0x${string}`; account: 'perp' | 'spot'; token: string; amount: string }) => Promise<void>;

export interface ApiContext {
  service: ServiceDeps;
  authentication: AuthenticateDeps;
  store: Store;
  adminToken: string;
  /** Bearer token `/metrics` requires (RFQ_METRICS_TOKEN); null: `/metrics` answers anyone. */
  metricsToken: string | null;
  rateLimiter: SharedRateLimiter;
  rateLimit: { perKeyPerSec: number; perSourcePerSec: number };
  metrics: HttpMetrics;
  /** True in the embedded stack (devnet-only admin calls are allowed). */
  embedded: boolean;
  /** Set once the node is draining; readiness then fails so load balancers stop sending. */
  draining: { value: boolean };
  /** The chain this node settles on; null when none is configured (tests of the auction alone). */
  chain: ChainFacts | null;
  /** Present only in the embedded stack whose devnet tokens the faucet key owns. */
  devnetFaucet: DevnetFaucet | null;
  /** Present only in the embedded stack, whose venue is the simulator. */
  venueFaucet?: VenueFaucet | null;
  /** The embedded venue simulator's URL, published by `GET /v1/rfq/network` (DESIGN.md 9.5); absent elsewhere. */
  venuePublicUrl?: string | null;
  /** Verifies a maker's Permit2 spender against the wrapper factory (chain adapter), when present. */
  spenderCheck?: SpenderCheck;
  /** Invariants contributed by adapters (e.g. on-chain custody against the ledger). */
  extraInvariants: ExtraInvariant[];
  /** Why this node is not ready besides the store (e.g. a halted chain follower); each null when fine. */
  notReadyReasons?: Array<() => string | null>;
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
    /**
     * The handler claims the request timestamp inside its own write (see submit-quote), and that
     * write checks the credential there too, atomically with what it writes: the key not revoked
     * (the claim) and, on a maker route, the maker in standing (`rfq_maker_standing`). So such a
     * route has no separate live read of either.
     */
    deferTimestampClaim?: boolean;
  }
}
