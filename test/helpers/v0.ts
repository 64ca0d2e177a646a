/**
 * A `/v0` test stack: the venue simulator in-process, a service node whose omnibus venue account
 * (and its approved API wallet) live there, and helpers to log in, fund at the venue, and call
 * `/v0` over loopback HTTP in either layout.
 */
import { TEST_VENUE_PROFILE } from './venue-profile.ts';
import { ExchangeClient, HttpTransport } from '@nktkas/hyperliquid';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { createSiweMessage, generateSiweNonce } from 'viem/siwe';
import { startVenueSim, type VenueSim } from '../../sim/venue/index.ts';
import { startHarness, type Harness, type HarnessOptions } from './harness.ts';
import type { Backend } from './backends.ts';
import { waitFor } from './eventually.ts';

export type { VenueSim };
/** A simulator in this process (`startSim`) or in its own (`sim/venue/launch.ts`): the stack needs only its URL. */
export type VenueSimLike = Pick<VenueSim, 'url' | 'stop'>;

/** Deposits arrive without waking the worker: the tests' waits are shorter than production's idle pause. */
export const V0_TEST_LEDGER_IDLE_MAX_MS = 1_000;

export const STATEMENT = 'Sign in with Ethereum to the app.';

/** The simulator (`sim/venue/`), in-process on a free port, state in memory unless a directory is given. */
export async function startSim(options: { dataDir: string | null; port?: number } = { dataDir: null }): Promise<VenueSim> {
  return startVenueSim({ port: 0, profile: TEST_VENUE_PROFILE, ...options });
}

export interface V0Reply {
  status: number;
  body: Record<string, any>;
}

export interface V0Stack {
  sim: VenueSimLike;
  harness: Harness;
  omnibusKey: `0x${string}`;
  agentKey: `0x${string}`;
  omnibus: PrivateKeyAccount;
  call(operation: string, fields?: Record<string, unknown>, options?: { token?: string | null; layout?: 'wrapped' | 'flat' }): Promise<V0Reply>;
  /** A SIWE message for `account` (overrides change single fields). */
  siwe(account: PrivateKeyAccount, overrides?: Partial<Parameters<typeof createSiweMessage>[0]>): string;
  login(account: PrivateKeyAccount, primaryAddress?: string): Promise<string>;
  /** Credits `account` at the venue (sim control) and sends `amount` to the omnibus by spotSend. */
  deposit(account: PrivateKeyAccount, token: 'USDC' | 'HYPE', amount: string): Promise<void>;
  simControl(path: string, body: unknown): Promise<any>;
  venueExchange(account: PrivateKeyAccount): ExchangeClient;
  /** Waits for the omnibus worker's next complete pass. */
  settle(): Promise<void>;
  waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs?: number): Promise<T>;
  invariants(): Promise<{ ok: boolean; violations: unknown[] }>;
  close(): Promise<void>;
}

export const TOKEN_IDS: Record<string, string> = { USDC: '0x6d1e7cde53ba9467b783cb7c530ce054', HYPE: '0x0d01dc56dcaaca66ad901c959b4011ec' };

export async function startV0Stack(backend: Backend, options: HarnessOptions & {
  sim?: VenueSimLike;
  omnibusKey?: `0x${string}`;
  agentKey?: `0x${string}`;
  /** The omnibus worker's idle pause (100 ms). */
  pollIntervalMs?: number;
  /** The venue network (mainnet): a given `sim` must be started for the same one. */
  network?: 'mainnet' | 'testnet';
  /** Its longest idle read pause (V0_TEST_LEDGER_IDLE_MAX_MS). */
  ledgerIdleMaxMs?: number;
  /** While pushing, its reconciliation read's period (the node's default, 60 s). */
  ledgerReconcileMs?: number;
  /** False: the worker polls only, without the venue's WebSocket pushes (default true). */
  push?: boolean;
} = {}): Promise<V0Stack> {
  const sim = options.sim ?? (await startSim());
  const network = options.network ?? 'mainnet';
  const omnibusKey = options.omnibusKey ?? generatePrivateKey();
  const agentKey = options.agentKey ?? generatePrivateKey();
  const omnibus = privateKeyToAccount(omnibusKey);
  const transport = new HttpTransport({ apiUrl: sim.url, isTestnet: network === 'testnet', timeout: 10_000 });
  const exchangeOf = (wallet: PrivateKeyAccount) => new ExchangeClient({ transport, wallet });
  const simControl = async (path: string, body: unknown) => {
    const response = await fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = await response.json();
    if (!response.ok) throw new Error(`sim ${path}: ${JSON.stringify(json)}`);
    return json;
  };
  let harness: Harness;
  try {
    if (!options.omnibusKey) {
      // The venue knows an account once it holds something; the omnibus then approves its API wallet.
      await simControl('/_sim/fund', { user: omnibus.address, account: 'spot', token: 'USDC', amount: '1' });
      await exchangeOf(omnibus).approveAgent({ agentAddress: privateKeyToAccount(agentKey).address, agentName: 'rfq-v0' });
    }
    const { sim: _sim, omnibusKey: _o, agentKey: _a, pollIntervalMs, network: _n, ledgerIdleMaxMs, ledgerReconcileMs, push, ...harnessOptions } = options;
    harness = await startHarness(backend, { ...harnessOptions, v0: { venue: { url: sim.url, omnibusKey, agentKey, network, pollIntervalMs: pollIntervalMs ?? 100, ledgerIdleMaxMs: ledgerIdleMaxMs ?? V0_TEST_LEDGER_IDLE_MAX_MS, ...(ledgerReconcileMs !== undefined ? { ledgerReconcileMs } : {}), push }, ...harnessOptions.v0 } });
  } catch (error) {
    if (!options.sim) await sim.stop();
    throw error;
  }
  const stack: V0Stack = {
    sim,
    harness,
    omnibusKey,
    agentKey,
    omnibus,
    async call(operation, fields = {}, callOptions = {}) {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (callOptions.token) headers.authorization = `Bearer ${callOptions.token}`;
      if (callOptions.layout) headers['v0-layout'] = callOptions.layout;
      const response = await fetch(`${harness.url}/v0`, { method: 'POST', headers, body: JSON.stringify({ operation, ...fields }) });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    },
    siwe(account, overrides = {}) {
      return createSiweMessage({ domain: 'localhost', address: account.address, statement: STATEMENT, uri: 'http://localhost/v0', version: '1', chainId: 31337, nonce: generateSiweNonce(), issuedAt: new Date(), ...overrides });
    },
    async login(account, primaryAddress) {
      const message = stack.siwe(account);
      const signature = await account.signMessage({ message });
      const reply = await stack.call('login', { message, signature, ...(primaryAddress ? { primaryAddress } : {}) }, { layout: 'flat' });
      if (reply.status !== 200) throw new Error(`login failed: ${JSON.stringify(reply.body)}`);
      return reply.body.token as string;
    },
    async deposit(account, token, amount) {
      await simControl('/_sim/fund', { user: account.address, account: 'spot', token, amount });
      await exchangeOf(account).spotSend({ destination: omnibus.address, token: `${token}:${TOKEN_IDS[token]}`, amount });
    },
    simControl,
    venueExchange: exchangeOf,
    async settle() {
      await harness.node.v0Worker!.settled();
    },
    async waitFor(probe, what, timeoutMs = 10_000) {
      return (await waitFor(probe, what, { timeoutMs })) as never;
    },
    async invariants() {
      const response = await fetch(`${harness.url}/admin/v1/invariants`, { headers: { authorization: 'Bearer test-admin-token-0123456789' } });
      return (await response.json()) as { ok: boolean; violations: unknown[] };
    },
    async close() {
      await harness.close();
      if (!options.sim) await sim.stop();
    },
  };
  return stack;
}
