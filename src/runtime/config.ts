/**
 * Configuration, read once from the environment, validated and frozen. Names and defaults follow
 * DESIGN.md section 7; every added setting carries its unit in the name. Unknown `RFQ_*` variables
 * are refused so a typo cannot silently fall back to a default.
 *
 * Mode: `RFQ_MODE=embedded|production`; when unset it is `production` if `DATABASE_URL`,
 * `CHAIN_RPC_URL` or `VENUE_URL` is set, else `embedded`. Embedded mode starts what is missing
 * (PGlite, anvil, venue simulator) and generates keys into the data directory; production starts
 * nothing and requires every external setting.
 */
import { isIP } from 'node:net';
import path from 'node:path';
import { venueHostMismatch } from '../venue/venue-hosts.ts';
import type { WsSettings } from '../ws/ws-context.ts';

export interface RateLimitConfig {
  /** Requests per second allowed per access key (signed requests). */
  perKeyPerSec: number;
  /** Requests per second allowed per source address (every request). */
  perSourcePerSec: number;
}

/** The WebSocket limits the WS adapter declares (src/ws/ws-context.ts), validated here. */
export type WsConfig = WsSettings;

/** The WebSocket limits' defaults (DESIGN.md section 7); RFQ_WS_* override them. */
export const WS_DEFAULTS: Readonly<WsConfig> = Object.freeze({
  handshakeDeadlineMs: 5000,
  maxUnauthenticatedPerSource: 32,
  maxSessionsPerAccount: 16,
  inboundFramesPerSec: 50,
  pingIntervalMs: 15_000,
  sendBufferBytes: 1 << 20,
  priceStaleMs: 5000,
  outboxRetentionMs: 24 * 3600_000,
  sessionAuditMs: 250,
  heartbeatTimeoutMs: 5000,
});

/**
 * Which peers' `X-Forwarded-For` is believed (RFQ_TRUST_PROXY): `false` none (the socket peer is
 * the client), a hop count (the nearest N peers are proxies), or the proxies' addresses and CIDR
 * ranges (plus proxy-addr's `loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = false | number | readonly string[];

const PROXY_PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Parses RFQ_TRUST_PROXY; a string result is the problem with it. */
export function parseTrustProxy(raw: string | null): TrustProxy | string {
  if (raw === null || ['0', 'false', 'no', 'off'].includes(raw)) return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    return hops >= 1 && hops <= 16 ? hops : `hop count must be from 1 to 16, got ${raw}`;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (PROXY_PRESETS.has(entry)) continue;
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
    if (family === 0 || !prefixOk || rest.length > 0) {
      return `must be off, a hop count, or a comma-separated list of addresses and CIDR ranges (or loopback, linklocal, uniquelocal); ${JSON.stringify(entry)} is none of these`;
    }
  }
  return Object.freeze(entries);
}

export interface ChainConfig {
  /** 0x-prefixed 32-byte hex; null in embedded mode means "generate into the data dir". */
  custodyKey: string | null;
  permit2Address: string;
  /** Required in production; the embedded devnet deploys its own. */
  wrapperFactoryAddress: string | null;
  xchangeAdapterAddress: string | null;
  /** Blocks on top of a block, itself included, before it counts (1: as soon as mined). */
  confirmations: number;
  /** First block to follow on a fresh store: a number, or `latest`. */
  startBlock: number | 'latest';
  pollIntervalMs: number;
  /** The operator's cap on any custody transaction's max fee per gas (gwei); fee bumps stop there. */
  custodyMaxFeePerGasGwei: number;
}

export interface VenueConfig {
  /** `source` of the signed L1 actions: `a` on mainnet, `b` on testnet (spec rule 14). */
  network: 'mainnet' | 'testnet';
  /** The service's builder address (lower case); required in production, generated when embedded. */
  builderAddress: string | null;
  /** Bound of one venue request unless the call site sets its own. */
  requestTimeoutMs: number;
  /** How long a read `meta` (size decimals, coin names) may be reused for quote-time checks. */
  metaCacheMs: number;
  /** How long an unclear perp taker outcome is looked up by cloid before EXECUTION_UNCONFIRMED. */
  perpResolveWindowMs: number;
  /** The request weight the nodes together spend at the venue per minute (its limit is per egress address). */
  weightPerMin: number;
}

export interface Config {
  mode: 'embedded' | 'production';
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  databasePoolSize: number;
  chainRpcUrl: string | null;
  venueUrl: string | null;
  siweDomain: string;
  chainId: number;
  /** Operator bearer token; null in embedded mode means "generate into the data dir". */
  adminToken: string | null;
  /** Base64 32-byte key encrypting API secrets at rest; null in embedded mode means generate. */
  secretKey: string | null;
  demoMakers: boolean;
  logLevel: string;
  rateLimit: RateLimitConfig;
  ws: WsConfig;
  http: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number; maxConnections: number; trustProxy: TrustProxy };
  /** Bearer token `/metrics` requires; null: `/metrics` is open (keep it on the operator's network). */
  metricsToken: string | null;
  /** Background workers this node runs: auctions, settlement, dispatch, withdrawals. */
  workers: ReadonlySet<string>;
  /** With PostgreSQL, the `auctions` worker runs on its own thread and event loop (RFQ_AUCTIONS_THREAD, default on). */
  auctionsThread: boolean;
  shutdownGraceMs: number;
  /** Embedded mode: the devnet's and venue simulator's ports when pinned (null: kept in the data directory). */
  embeddedPorts: Readonly<{ devnet: number | null; venueSim: number | null }>;
  chain: ChainConfig;
  venue: VenueConfig;
  v0: V0Config;
}

export interface V0Config {
  /** The omnibus venue account's key (transfers) and its approved API wallet's key (orders); 0x hex.
   * Null in embedded mode means "generate into the data dir". */
  omnibusKey: string | null;
  agentKey: string | null;
  /** The `/v0` response layout when a request names none. */
  layout: 'wrapped' | 'flat';
}

const KNOWN = new Set([
  'RFQ_MODE', 'RFQ_DATA_DIR', 'RFQ_ADMIN_TOKEN', 'RFQ_SECRET_KEY', 'RFQ_SIWE_DOMAIN', 'RFQ_CHAIN_ID', 'RFQ_DEMO_MAKERS',
  'RFQ_LOG_LEVEL', 'RFQ_RATE_LIMIT_PER_KEY_PER_SEC', 'RFQ_RATE_LIMIT_PER_SOURCE_PER_SEC', 'RFQ_WS_HANDSHAKE_DEADLINE_MS',
  'RFQ_WS_MAX_UNAUTHENTICATED_PER_SOURCE', 'RFQ_WS_MAX_SESSIONS_PER_ACCOUNT', 'RFQ_WS_INBOUND_FRAMES_PER_SEC',
  'RFQ_WS_PING_INTERVAL_MS', 'RFQ_WS_SEND_BUFFER_BYTES', 'RFQ_PRICE_STALE_MS', 'RFQ_OUTBOX_RETENTION_MS', 'RFQ_WS_SESSION_AUDIT_MS', 'RFQ_WS_HEARTBEAT_TIMEOUT_MS', 'RFQ_HTTP_REQUEST_TIMEOUT_MS', 'RFQ_HTTP_HEADERS_TIMEOUT_MS', 'RFQ_HTTP_KEEP_ALIVE_TIMEOUT_MS', 'RFQ_HTTP_MAX_CONNECTIONS', 'RFQ_TRUST_PROXY', 'RFQ_METRICS_TOKEN', 'RFQ_WORKERS', 'RFQ_AUCTIONS_THREAD',
  'RFQ_DATABASE_POOL_SIZE', 'RFQ_SHUTDOWN_GRACE_MS', 'RFQ_CUSTODY_KEY', 'RFQ_PERMIT2_ADDRESS', 'RFQ_WRAPPER_FACTORY_ADDRESS',
  'RFQ_XCHANGE_ADAPTER_ADDRESS', 'RFQ_CHAIN_CONFIRMATIONS', 'RFQ_CHAIN_START_BLOCK', 'RFQ_CHAIN_POLL_INTERVAL_MS', 'RFQ_CUSTODY_MAX_FEE_PER_GAS_GWEI',
  'RFQ_VENUE_OMNIBUS_KEY', 'RFQ_VENUE_AGENT_KEY', 'RFQ_V0_LAYOUT',
  'RFQ_VENUE_NETWORK', 'RFQ_VENUE_BUILDER_ADDRESS', 'RFQ_VENUE_REQUEST_TIMEOUT_MS', 'RFQ_VENUE_META_CACHE_MS',
  'RFQ_PERP_RESOLVE_WINDOW_MS', 'RFQ_DEVNET_PORT', 'RFQ_VENUE_SIM_PORT', 'RFQ_VENUE_WEIGHT_PER_MIN',
  // Read by the embedded venue simulator's process (sim/venue/main.ts), validated here.
  'RFQ_VENUE_SIM_PROFILE',
  // Read by the admin CLI (its target URL), not the service; known so one shared env file works.
  'RFQ_URL', 'RFQ_V0_KEY',
]);

export const ALL_WORKERS = ['auctions', 'settlement', 'dispatch', 'withdrawals', 'v0'] as const;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Readonly<Config> {
  const problems: string[] = [];
  for (const name of Object.keys(env)) {
    if (name.startsWith('RFQ_') && !KNOWN.has(name)) problems.push(`${name}: unknown setting (see docs/operator-guide.md)`);
  }
  const text = (name: string): string | null => {
    const value = env[name];
    return value === undefined || value === '' ? null : value;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = text(name);
    if (raw === null) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}: must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return Number(raw);
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = text(name);
    if (raw === null) return fallback;
    if (['1', 'true', 'yes'].includes(raw)) return true;
    if (['0', 'false', 'no'].includes(raw)) return false;
    problems.push(`${name}: must be 1/true/yes or 0/false/no, got ${JSON.stringify(raw)}`);
    return fallback;
  };
  const url = (name: string, protocols: string[]): string | null => {
    const raw = text(name);
    if (raw === null) return null;
    try {
      const parsed = new URL(raw);
      if (!protocols.includes(parsed.protocol)) problems.push(`${name}: protocol must be one of ${protocols.join(', ')}`);
    } catch {
      problems.push(`${name}: not a valid URL`);
    }
    return raw;
  };

  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:']);
  const chainRpcUrl = url('CHAIN_RPC_URL', ['http:', 'https:', 'ws:', 'wss:']);
  const venueUrl = url('VENUE_URL', ['http:', 'https:']);
  const explicitMode = text('RFQ_MODE');
  if (explicitMode !== null && explicitMode !== 'embedded' && explicitMode !== 'production') {
    problems.push(`RFQ_MODE: must be embedded or production, got ${JSON.stringify(explicitMode)}`);
  }
  const mode: Config['mode'] =
    explicitMode === 'embedded' || explicitMode === 'production'
      ? explicitMode
      : databaseUrl || chainRpcUrl || venueUrl
        ? 'production'
        : 'embedded';

  const adminToken = text('RFQ_ADMIN_TOKEN');
  const secretKey = text('RFQ_SECRET_KEY');
  if (adminToken !== null && adminToken.length < 16) problems.push('RFQ_ADMIN_TOKEN: must be at least 16 characters');
  if (secretKey !== null && Buffer.from(secretKey, 'base64').length !== 32) problems.push('RFQ_SECRET_KEY: must be 32 bytes, base64-encoded');
  if (mode === 'production') {
    if (!databaseUrl) problems.push('DATABASE_URL: required in production mode (postgres://...)');
    if (!chainRpcUrl) problems.push('CHAIN_RPC_URL: required in production mode (EVM JSON-RPC URL)');
    if (!venueUrl) problems.push('VENUE_URL: required in production mode (Hyperliquid-compatible API URL)');
    if (!adminToken) problems.push('RFQ_ADMIN_TOKEN: required in production mode (operator bearer token)');
    else if (adminToken.length >= 16 && adminToken.length < 32) problems.push('RFQ_ADMIN_TOKEN: must be at least 32 characters in production mode');
    // A sign-in domain or chain left at its development default would accept logins meant for another site.
    if (!text('RFQ_SIWE_DOMAIN')) problems.push('RFQ_SIWE_DOMAIN: required in production mode (the domain users sign in to)');
    if (!text('RFQ_CHAIN_ID')) problems.push('RFQ_CHAIN_ID: required in production mode (the chain id users sign in on)');
    if (!secretKey) problems.push('RFQ_SECRET_KEY: required in production mode (32 bytes, base64; encrypts API secrets)');
  }

  const trustProxy = parseTrustProxy(text('RFQ_TRUST_PROXY'));
  if (typeof trustProxy === 'string') problems.push(`RFQ_TRUST_PROXY: ${trustProxy}`);
  const metricsToken = text('RFQ_METRICS_TOKEN');
  if (metricsToken !== null && metricsToken.length < 16) problems.push('RFQ_METRICS_TOKEN: must be at least 16 characters');

  const address = (name: string): string | null => {
    const raw = text(name);
    if (raw !== null && !/^0x[0-9a-fA-F]{40}$/.test(raw)) problems.push(`${name}: must be a 0x-prefixed 20-byte hex address`);
    return raw;
  };
  const custodyKey = text('RFQ_CUSTODY_KEY');
  if (custodyKey !== null && !/^0x[0-9a-fA-F]{64}$/.test(custodyKey)) problems.push('RFQ_CUSTODY_KEY: must be a 0x-prefixed 32-byte hex private key');
  const wrapperFactoryAddress = address('RFQ_WRAPPER_FACTORY_ADDRESS');
  if (mode === 'production') {
    if (!custodyKey) problems.push('RFQ_CUSTODY_KEY: required in production mode (custody private key, 0x hex)');
    if (!wrapperFactoryAddress) problems.push('RFQ_WRAPPER_FACTORY_ADDRESS: required in production mode (the deployed RfqMakerWrapperFactory)');
  }
  const startBlockRaw = text('RFQ_CHAIN_START_BLOCK');
  let startBlock: number | 'latest' = mode === 'embedded' ? 0 : 'latest';
  if (startBlockRaw !== null) {
    if (startBlockRaw === 'latest') startBlock = 'latest';
    else if (/^\d+$/.test(startBlockRaw)) startBlock = Number(startBlockRaw);
    else problems.push(`RFQ_CHAIN_START_BLOCK: must be a block number or latest, got ${JSON.stringify(startBlockRaw)}`);
  }
  const chain: ChainConfig = Object.freeze({
    custodyKey,
    permit2Address: address('RFQ_PERMIT2_ADDRESS') ?? '0x000000000022D473030F116dDEE9F6B43aC78BA3',
    wrapperFactoryAddress,
    xchangeAdapterAddress: address('RFQ_XCHANGE_ADAPTER_ADDRESS'),
    // The devnet never reorganises; a public chain needs depth (12 is a conservative mainnet default).
    confirmations: int('RFQ_CHAIN_CONFIRMATIONS', mode === 'embedded' ? 1 : 12, 1, 10_000),
    startBlock,
    pollIntervalMs: int('RFQ_CHAIN_POLL_INTERVAL_MS', mode === 'embedded' ? 250 : 2000, 50, 600_000),
    custodyMaxFeePerGasGwei: int('RFQ_CUSTODY_MAX_FEE_PER_GAS_GWEI', 500, 1, 1_000_000),
  });

  const omnibusKey = text('RFQ_VENUE_OMNIBUS_KEY');
  const agentKey = text('RFQ_VENUE_AGENT_KEY');
  for (const [name, key] of [['RFQ_VENUE_OMNIBUS_KEY', omnibusKey], ['RFQ_VENUE_AGENT_KEY', agentKey]] as const) {
    if (key !== null && !/^0x[0-9a-fA-F]{64}$/.test(key)) problems.push(`${name}: must be a 0x-prefixed 32-byte hex private key`);
  }
  // DESIGN.md section 10: the omnibus and its API wallet are generated when embedded, required in production.
  if (mode === 'production') {
    if (omnibusKey === null) problems.push('RFQ_VENUE_OMNIBUS_KEY: required in production mode (the /v0 omnibus venue account\'s private key, 0x hex)');
    if (agentKey === null) problems.push('RFQ_VENUE_AGENT_KEY: required in production mode (the private key of the API wallet the omnibus approved, 0x hex)');
  } else if ((omnibusKey === null) !== (agentKey === null)) {
    problems.push('RFQ_VENUE_OMNIBUS_KEY and RFQ_VENUE_AGENT_KEY: set both (the omnibus and its approved API wallet) or neither');
  }
  const layout = text('RFQ_V0_LAYOUT') ?? 'flat';
  if (layout !== 'wrapped' && layout !== 'flat') problems.push(`RFQ_V0_LAYOUT: must be wrapped or flat, got ${JSON.stringify(layout)}`);
  const v0: V0Config = Object.freeze({ omnibusKey, agentKey, layout: layout === 'wrapped' ? 'wrapped' : 'flat' });
  const venueNetworkRaw = text('RFQ_VENUE_NETWORK');
  let venueNetwork: VenueConfig['network'] = mode === 'embedded' ? 'testnet' : 'mainnet';
  if (venueNetworkRaw === 'mainnet' || venueNetworkRaw === 'testnet') venueNetwork = venueNetworkRaw;
  else if (venueNetworkRaw !== null) problems.push(`RFQ_VENUE_NETWORK: must be mainnet or testnet, got ${JSON.stringify(venueNetworkRaw)}`);
  const hostMismatch = venueUrl ? venueHostMismatch(venueUrl, venueNetwork) : null;
  if (hostMismatch !== null) problems.push(`VENUE_URL: ${hostMismatch} (set RFQ_VENUE_NETWORK to match the host)`);
  const builderAddress = address('RFQ_VENUE_BUILDER_ADDRESS');
  if (mode === 'production' && !builderAddress) problems.push('RFQ_VENUE_BUILDER_ADDRESS: required in production mode (the builder address perp orders attribute fees to)');
  const simProfile = text('RFQ_VENUE_SIM_PROFILE');
  if (simProfile !== null && simProfile !== 'fast' && simProfile !== 'realistic') problems.push(`RFQ_VENUE_SIM_PROFILE: must be fast or realistic, got ${JSON.stringify(simProfile)}`);
  const venue: VenueConfig = Object.freeze({
    network: venueNetwork,
    builderAddress: builderAddress === null ? null : builderAddress.toLowerCase(),
    requestTimeoutMs: int('RFQ_VENUE_REQUEST_TIMEOUT_MS', 2000, 50, 60_000),
    metaCacheMs: int('RFQ_VENUE_META_CACHE_MS', 60_000, 0, 600_000),
    // Below the settlement headroom: the RFQ's outcome is known well before its settlement deadline.
    perpResolveWindowMs: int('RFQ_PERP_RESOLVE_WINDOW_MS', 30_000, 1_000, 600_000),
    // Three quarters of the venue's public 1,200 per minute: room for a hand-run tool on the same address.
    weightPerMin: int('RFQ_VENUE_WEIGHT_PER_MIN', 900, 60, 1_000_000),
  });

  const workersRaw = text('RFQ_WORKERS');
  const workers = new Set<string>(workersRaw === null ? ALL_WORKERS : workersRaw === 'none' ? [] : workersRaw.split(','));
  for (const worker of workers) {
    if (!(ALL_WORKERS as readonly string[]).includes(worker)) problems.push(`RFQ_WORKERS: unknown worker ${JSON.stringify(worker)} (known: ${ALL_WORKERS.join(', ')}, or none)`);
  }

  const config: Config = {
    mode,
    host: text('HOST') ?? '127.0.0.1',
    port: int('PORT', 8080, 0, 65535),
    dataDir: path.resolve(cwd, text('RFQ_DATA_DIR') ?? './.rfq-data'),
    databaseUrl,
    databasePoolSize: int('RFQ_DATABASE_POOL_SIZE', 10, 1, 200),
    chainRpcUrl,
    venueUrl,
    siweDomain: text('RFQ_SIWE_DOMAIN') ?? 'localhost',
    chainId: int('RFQ_CHAIN_ID', 31337, 1, 2 ** 31),
    adminToken,
    secretKey,
    demoMakers: bool('RFQ_DEMO_MAKERS', mode === 'embedded'),
    logLevel: text('RFQ_LOG_LEVEL') ?? 'info',
    rateLimit: Object.freeze({
      perKeyPerSec: int('RFQ_RATE_LIMIT_PER_KEY_PER_SEC', 100, 1, 1_000_000),
      perSourcePerSec: int('RFQ_RATE_LIMIT_PER_SOURCE_PER_SEC', 1000, 1, 1_000_000),
    }),
    ws: Object.freeze({
      handshakeDeadlineMs: int('RFQ_WS_HANDSHAKE_DEADLINE_MS', WS_DEFAULTS.handshakeDeadlineMs, 100, 60_000),
      maxUnauthenticatedPerSource: int('RFQ_WS_MAX_UNAUTHENTICATED_PER_SOURCE', WS_DEFAULTS.maxUnauthenticatedPerSource, 1, 1_000_000),
      maxSessionsPerAccount: int('RFQ_WS_MAX_SESSIONS_PER_ACCOUNT', WS_DEFAULTS.maxSessionsPerAccount, 1, 1_000_000),
      inboundFramesPerSec: int('RFQ_WS_INBOUND_FRAMES_PER_SEC', WS_DEFAULTS.inboundFramesPerSec, 1, 1_000_000),
      pingIntervalMs: int('RFQ_WS_PING_INTERVAL_MS', WS_DEFAULTS.pingIntervalMs, 100, 600_000),
      sendBufferBytes: int('RFQ_WS_SEND_BUFFER_BYTES', WS_DEFAULTS.sendBufferBytes, 1024, 1 << 30),
      priceStaleMs: int('RFQ_PRICE_STALE_MS', WS_DEFAULTS.priceStaleMs, 100, 600_000),
      outboxRetentionMs: int('RFQ_OUTBOX_RETENTION_MS', WS_DEFAULTS.outboxRetentionMs, 1000, 30 * 24 * 3600_000),
      // At most 1 s: a revoked key or a deactivated maker must lose its sessions within 1 s (DESIGN 11).
      sessionAuditMs: int('RFQ_WS_SESSION_AUDIT_MS', WS_DEFAULTS.sessionAuditMs, 50, 1000),
      heartbeatTimeoutMs: int('RFQ_WS_HEARTBEAT_TIMEOUT_MS', WS_DEFAULTS.heartbeatTimeoutMs, 500, 600_000),
    }),
    http: Object.freeze({
      requestTimeoutMs: int('RFQ_HTTP_REQUEST_TIMEOUT_MS', 10_000, 1000, 600_000),
      headersTimeoutMs: int('RFQ_HTTP_HEADERS_TIMEOUT_MS', 5000, 500, 600_000),
      keepAliveTimeoutMs: int('RFQ_HTTP_KEEP_ALIVE_TIMEOUT_MS', 5000, 100, 600_000),
      maxConnections: int('RFQ_HTTP_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
      trustProxy: typeof trustProxy === 'string' ? false : trustProxy,
    }),
    metricsToken,
    workers,
    auctionsThread: bool('RFQ_AUCTIONS_THREAD', true),
    shutdownGraceMs: int('RFQ_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    embeddedPorts: Object.freeze({
      devnet: text('RFQ_DEVNET_PORT') === null ? null : int('RFQ_DEVNET_PORT', 0, 1, 65535),
      venueSim: text('RFQ_VENUE_SIM_PORT') === null ? null : int('RFQ_VENUE_SIM_PORT', 0, 1, 65535),
    }),
    chain,
    v0,
    venue,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
