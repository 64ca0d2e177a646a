/**
 * The venue adapter (DESIGN.md 9.4): the SDK's `HttpTransport` (as `VenueTransport`, sent over
 * node:http) used raw, `request("info" | "exchange", ...)`, so pre-signed actions go out byte for
 * byte as the client signed them and nothing here holds a key. Every call carries its own timeout
 * (the transport's own is off); `meta` and `extraAgents` have short caches, `freshMeta`,
 * `maxBuilderFee`, order status and fills are always read now. Every request goes through the
 * node's weight budget (venue-budget.ts) at the priority of the client's view: as constructed, the
 * quote path's (reads at quote-time priority); `forExecution()`, the execution's (reads at
 * execution priority). Sends are at the first priority in both.
 */
import { HttpRequestError } from '@nktkas/hyperliquid';
import { VenueTransport } from './venue-transport.ts';
import { httpRefusal, REFUSING_HTTP_STATUSES } from '../domain/perp/order-outcome.ts';
import { canonicalSignature } from '../domain/perp/signed-action.ts';
import { VenueBudgetRefusedError, type VenueBudget } from './venue-budget.ts';
import type { VenuePriority } from '../domain/venue/request-weight.ts';
import type { Address, Hex } from 'viem';
import type { VenueAgent } from '../domain/perp/authorised-signer.ts';
import type { SignedVenueAction, VenueNetwork } from '../domain/perp/types.ts';
import type { ExchangeReply, OrderStatusReply, PerpVenue, VenueFill, VenueMeta } from '../services/perp/venue-port.ts';

export type { ExchangeReply, OrderStatusReply, VenueFill };

export interface VenueClientOptions {
  url: string;
  network: VenueNetwork;
  builderAddress: Address | null;
  /** Default bound of one request, unless the call site passes its own. */
  requestTimeoutMs?: number;
  metaCacheMs?: number;
  agentsCacheMs?: number;
  now?: () => number;
  /** The node's venue weight budget; none: nothing is counted. */
  budget?: VenueBudget | null;
}

/** The venue did not answer in time, answered with an HTTP error, or answered garbage. */
export class VenueUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VenueUnavailableError';
  }
}

/** One bounded cache entry: a value and when it was read. */
interface Cached<T> {
  value: T;
  readAt: number;
}

const MAX_CACHED_AGENT_USERS = 10_000;

/** What every view of one client shares: the transport (and its budget) and the caches. */
interface SharedParts {
  transport: VenueTransport;
  meta: Cached<VenueMeta> | null;
  agents: Map<string, Cached<VenueAgent[]>>;
}

/** Which priority a view's reads and sends spend at. */
interface ViewPriorities {
  read: VenuePriority;
  send: VenuePriority;
}

const QUOTE_VIEW: ViewPriorities = { read: 3, send: 1 };
const EXECUTION_VIEW: ViewPriorities = { read: 2, send: 1 };

export class VenueClient implements PerpVenue {
  readonly network: VenueNetwork;
  readonly builderAddress: Address | null;
  readonly url: string;
  readonly #options: VenueClientOptions;
  readonly #shared: SharedParts;
  readonly #priorities: ViewPriorities;
  readonly #timeoutMs: number;
  readonly #metaCacheMs: number;
  readonly #agentsCacheMs: number;
  readonly #now: () => number;

  constructor(options: VenueClientOptions, shared?: SharedParts, priorities: ViewPriorities = QUOTE_VIEW) {
    this.#options = options;
    this.network = options.network;
    this.builderAddress = options.builderAddress === null ? null : (options.builderAddress.toLowerCase() as Address);
    this.url = options.url;
    // The transport's own timeout is off: each call below passes its own.
    this.#shared = shared ?? { transport: new VenueTransport({ apiUrl: options.url, isTestnet: options.network === 'testnet', timeout: null, budget: options.budget ?? null }), meta: null, agents: new Map() };
    this.#priorities = priorities;
    this.#timeoutMs = options.requestTimeoutMs ?? 2_000;
    this.#metaCacheMs = options.metaCacheMs ?? 60_000;
    this.#agentsCacheMs = options.agentsCacheMs ?? 2_000;
    this.#now = options.now ?? Date.now;
  }

  /** The same client (transport, budget, caches) with the execution's priorities: its reads go before quote-time reads. */
  forExecution(): VenueClient {
    return new VenueClient(this.#options, this.#shared, EXECUTION_VIEW);
  }

  /** The weight budget its requests go through, if any. */
  get budget(): VenueBudget | null {
    return this.#shared.transport.budget;
  }

  /** One raw request, aborted after `timeoutMs`, at this view's priority for its endpoint. */
  async request<T>(endpoint: 'info' | 'exchange', payload: unknown, timeoutMs = this.#timeoutMs): Promise<T> {
    try {
      return await this.#shared.transport.post<T>(endpoint, payload, { timeoutMs, priority: endpoint === 'exchange' ? this.#priorities.send : this.#priorities.read });
    } catch (error) {
      throw new VenueUnavailableError(`venue ${endpoint} request failed: ${(error as Error).message}`, { cause: error });
    }
  }

  async freshMeta(timeoutMs?: number): Promise<VenueMeta> {
    const raw = await this.request<{ universe?: unknown }>('info', { type: 'meta' }, timeoutMs);
    const meta = parseMeta(raw);
    this.#shared.meta = { value: meta, readAt: this.#now() };
    return meta;
  }

  async meta(): Promise<VenueMeta> {
    const cached = this.#shared.meta;
    if (cached !== null && this.#now() - cached.readAt < this.#metaCacheMs) return cached.value;
    return this.freshMeta();
  }

  async extraAgents(user: Address): Promise<VenueAgent[]> {
    const key = user.toLowerCase();
    const cached = this.#shared.agents.get(key);
    if (cached !== undefined && this.#now() - cached.readAt < this.#agentsCacheMs) return cached.value;
    const raw = await this.request<unknown>('info', { type: 'extraAgents', user: key });
    if (!Array.isArray(raw)) throw new VenueUnavailableError('venue extraAgents: not an array');
    const agents: VenueAgent[] = raw.flatMap((entry: unknown) => {
      const agent = entry as { address?: unknown; validUntil?: unknown };
      if (typeof agent.address !== 'string') return [];
      return [{ address: agent.address as Address, validUntil: typeof agent.validUntil === 'number' ? agent.validUntil : null }];
    });
    const cache = this.#shared.agents;
    if (cache.size >= MAX_CACHED_AGENT_USERS) cache.clear();
    cache.set(key, { value: agents, readAt: this.#now() });
    return agents;
  }

  /**
   * What the venue says `user` is (`userRole`): an API wallet names the account it signs for.
   * Unnamed API wallets are missing from `extraAgents`; this is how they are found (DESIGN 13).
   */
  async userRole(user: Address, timeoutMs?: number): Promise<VenueUserRole> {
    const raw = await this.request<unknown>('info', { type: 'userRole', user: user.toLowerCase() }, timeoutMs);
    return parseUserRole(raw);
  }

  /** The account's perps account value (`clearinghouseState.marginSummary.accountValue`), as the venue writes it. */
  async perpAccountValue(user: Address, timeoutMs?: number): Promise<string> {
    const raw = await this.request<{ marginSummary?: { accountValue?: unknown } } | null>('info', { type: 'clearinghouseState', user: user.toLowerCase() }, timeoutMs);
    const value = raw?.marginSummary?.accountValue;
    if (typeof value !== 'string' || !/^-?\d+(\.\d+)?$/.test(value)) throw new VenueUnavailableError(`venue clearinghouseState: no marginSummary.accountValue in ${JSON.stringify(raw).slice(0, 200)}`);
    return value;
  }

  /** The user's approved maximum builder fee for `builder`, in tenths of a basis point; never cached. */
  async maxBuilderFee(user: Address, builder: Address, timeoutMs?: number): Promise<number> {
    const raw = await this.request<unknown>('info', { type: 'maxBuilderFee', user: user.toLowerCase(), builder: builder.toLowerCase() }, timeoutMs);
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0) throw new VenueUnavailableError(`venue maxBuilderFee: unexpected answer ${JSON.stringify(raw)}`);
    return raw;
  }

  /** `orderStatus` by client order id: the venue's reply as is (`{ status: "order", order }` or `{ status: "unknownOid" }`). */
  orderStatusByCloid(user: Address, cloid: Hex, timeoutMs?: number): Promise<OrderStatusReply> {
    return this.request<OrderStatusReply>('info', { type: 'orderStatus', user: user.toLowerCase(), oid: cloid }, timeoutMs);
  }

  /** The user's fills from `startMs` on (the venue caps the page; callers bound the window). */
  userFillsByTime(user: Address, startMs: number, timeoutMs?: number): Promise<VenueFill[]> {
    return this.request<VenueFill[]>('info', { type: 'userFillsByTime', user: user.toLowerCase(), startTime: startMs }, timeoutMs);
  }

  /**
   * Sends a pre-signed action exactly as signed. The venue's refusals come back as a normal
   * reply (`{ status: "err", response }`), HTTP 422 and 429 included (the venue did not place
   * the action: `httpRefusal`); only a request that got no answer throws (VenueUnavailableError),
   * and the caller decides what an unclear outcome means: nothing here retries.
   */
  async sendExchange(signed: SignedVenueAction, timeoutMs = this.#timeoutMs): Promise<ExchangeReply> {
    // The signature as the venue reads it (32-byte r and s); the action exactly as signed.
    const body = { action: signed.action, nonce: signed.nonce, signature: canonicalSignature(signed.signature) };
    try {
      return await this.#shared.transport.post<ExchangeReply>('exchange', body, { timeoutMs, priority: this.#priorities.send });
    } catch (error) {
      // The budget refused it before sending: certainly not placed, like the venue's own 429.
      if (error instanceof VenueBudgetRefusedError) return { status: 'err', response: error.message };
      const status = error instanceof HttpRequestError ? error.response?.status : undefined;
      if (status !== undefined && REFUSING_HTTP_STATUSES.includes(status)) {
        const text = await (error as HttpRequestError).response!.text().catch(() => '');
        return httpRefusal(status, text);
      }
      throw new VenueUnavailableError(`venue exchange request failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

function parseMeta(raw: { universe?: unknown }): VenueMeta {
  if (raw === null || typeof raw !== 'object' || !Array.isArray(raw.universe)) throw new VenueUnavailableError('venue meta: no universe array');
  return {
    universe: raw.universe.map((entry: unknown, index: number) => {
      const asset = entry as { name?: unknown; szDecimals?: unknown; isDelisted?: unknown };
      if (typeof asset.name !== 'string' || typeof asset.szDecimals !== 'number' || !Number.isInteger(asset.szDecimals) || asset.szDecimals < 0) {
        throw new VenueUnavailableError(`venue meta: universe[${index}] is malformed`);
      }
      return { name: asset.name, szDecimals: asset.szDecimals, isDelisted: asset.isDelisted === true };
    }),
  };
}

/** `userRole` as the venue answers it: `{ role }`, with `data.user` for an agent and `data.master` for a sub-account. */
export type VenueUserRole =
  | { role: 'agent'; user: Address }
  | { role: 'subAccount'; master: Address }
  | { role: 'user' | 'vault' | 'missing' };

export function parseUserRole(raw: unknown): VenueUserRole {
  const reply = raw as { role?: unknown; data?: { user?: unknown; master?: unknown } } | null;
  const role = reply?.role;
  const address = (value: unknown): Address | null => (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value) ? (value.toLowerCase() as Address) : null);
  if (role === 'agent') {
    const user = address(reply?.data?.user);
    if (user !== null) return { role, user };
  } else if (role === 'subAccount') {
    const master = address(reply?.data?.master);
    if (master !== null) return { role, master };
  } else if (role === 'user' || role === 'vault' || role === 'missing') {
    return { role };
  }
  throw new VenueUnavailableError(`venue userRole: unexpected answer ${JSON.stringify(raw)?.slice(0, 200)}`);
}
