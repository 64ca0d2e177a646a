/**
 * The node context: everything one node shares between its HTTP routes, its WebSocket adapter and
 * its workers, built once here. Each adapter declares what it needs (`ApiContext` in src/api,
 * `WsContext` in src/ws) and receives this object typed as that, so adapters never import each
 * other and nothing is looked up through a side table.
 */
import type { ApiContext, DevnetFaucet } from '../api/context.ts';
import type { V0RouteContext } from '../api/v0/v0.routes.ts';
import type { WsContext } from '../ws/ws-context.ts';
import type { ChainContext } from '../chain/chain-context.ts';
import { mintRawTestToken } from '../chain/faucet.ts';
import type { Store } from '../store/database.ts';
import type { ServiceDeps } from '../services/deps.ts';
import { CredentialCache } from '../services/auth/credential-cache.ts';
import { TimestampClaims } from '../services/auth/timestamp-claims.ts';
import { SharedRateLimiter } from '../api/rate-limiter.ts';
import { createHttpMetrics } from '../api/metrics.ts';
import { createWsParts } from '../ws/ws-runtime.ts';
import type { RateLimitConfig, WsConfig } from './config.ts';

export interface NodeContext extends ApiContext, WsContext {
  /** The chain this node settles on, with its clients; null when none is configured. */
  chain: ChainContext | null;
}

export interface NodeContextParts {
  service: ServiceDeps;
  store: Store;
  adminToken: string;
  metricsToken: string | null;
  rateLimit: RateLimitConfig;
  ws: WsConfig;
  embedded: boolean;
  chain: ChainContext | null;
  v0: V0RouteContext;
}

/** The faucet exists only in the embedded stack, on a devnet whose tokens the faucet key owns. */
function devnetFaucetOf(embedded: boolean, chain: ChainContext | null): DevnetFaucet | null {
  const ownerKey = chain?.settings.faucetKey ?? null;
  if (!embedded || !chain || ownerKey === null) return null;
  return (mint) => mintRawTestToken({ rpcUrl: chain.settings.rpcUrl, ownerKey, ...mint });
}

export function buildNodeContext(parts: NodeContextParts): NodeContext {
  const { service, store } = parts;
  const context: NodeContext = {
    service,
    authentication: { service, credentials: new CredentialCache(), claims: new TimestampClaims(store.db) },
    store,
    adminToken: parts.adminToken,
    metricsToken: parts.metricsToken,
    // An embedded store has one node (PGlite cannot be opened twice): its counts need no sharing.
    rateLimiter: new SharedRateLimiter(store.kind === 'postgres' ? store.db : null),
    rateLimit: parts.rateLimit,
    metrics: createHttpMetrics(),
    embedded: parts.embedded,
    draining: { value: false },
    extraInvariants: [],
    chain: parts.chain,
    devnetFaucet: devnetFaucetOf(parts.embedded, parts.chain),
    ws: parts.ws,
    v0: parts.v0,
    ...createWsParts(store, () => service.clock.now(), () => context.ws.priceStaleMs),
  };
  return context;
}
