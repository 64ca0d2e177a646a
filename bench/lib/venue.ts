/**
 * The service under test as a separate process (`node src/runtime/main.ts`, embedded mode on
 * the bench PostgreSQL), and its population: reference data, settings, makers and takers signed
 * in through SIWE exactly as integrators do.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AdminClient } from '../../src/client/admin-client.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import { inParallel, Signer, type HttpClient } from './http-load.ts';
import { repoRoot, spawnServer, type Child } from './processes.ts';

export interface ServiceOptions {
  databaseUrl: string;
  dataDir: string;
  probeFile: string | null;
  cpuProfDir: string | null;
  /** `--timeline`: where the probe writes what the service did (needs the probe). */
  timelineFile?: string | null;
  poolSize: number;
  /** Extra RFQ_* settings for this run (e.g. WebSocket limits). */
  env?: Record<string, string>;
  /** More bench modules to preload into the service (`--import`), e.g. bench/lib/quote-hop-probe.ts. */
  imports?: string[];
}

export interface Service extends Child {
  adminToken: string;
}

export async function startService(options: ServiceOptions): Promise<Service> {
  // The service refuses unknown RFQ_* variables, so pass only ours.
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('RFQ_')) env[key] = value;
  Object.assign(env, {
    RFQ_MODE: 'embedded',
    DATABASE_URL: options.databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    RFQ_LOG_LEVEL: 'warn',
    RFQ_RATE_LIMIT_PER_KEY_PER_SEC: '1000000',
    RFQ_RATE_LIMIT_PER_SOURCE_PER_SEC: '1000000',
    RFQ_DEMO_MAKERS: '0',
    RFQ_DATA_DIR: options.dataDir,
    RFQ_DATABASE_POOL_SIZE: String(options.poolSize),
    BENCH_PROBE_FILE: options.probeFile ?? undefined,
    BENCH_TIMELINE_FILE: options.timelineFile ?? undefined,
    ...options.env,
  });
  // BENCH_SERVICE_NODE_ARGS: extra Node flags for the service process alone (e.g. GC settings
  // to compare), so that the load generator and the bare floors run as they always do.
  const args: string[] = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  if (options.probeFile) args.push('--import', path.join(repoRoot, 'bench/lib/service-probe.ts'));
  for (const module of options.imports ?? []) args.push('--import', path.join(repoRoot, module));
  if (options.cpuProfDir) args.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`);
  args.push('src/runtime/main.ts');
  const child = await spawnServer({ name: 'rfq-service', args, env, cwd: repoRoot, ready: /listening on (http:\/\/\S+)/ });
  const adminToken = (await readFile(path.join(options.dataDir, 'admin-token'), 'utf8')).trim();
  // "listening" comes before the embedded set-up is done: load only once /readyz says ready.
  const deadline = Date.now() + 180_000;
  for (;;) {
    const ready = await fetch(`${child.url}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) break;
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`rfq-service did not become ready within 180 s; stderr: ${child.stderrTail.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return Object.assign(child, { adminToken });
}

export interface Actor {
  address: string;
  signer: Signer;
  makerId: string | null;
}

export const INSTRUMENT = 'ETH-USDC-SPOT';

export async function seedReferenceData(admin: AdminClient, settings: Record<string, number>): Promise<void> {
  await admin.putToken('USDC', { decimals: 6 });
  await admin.putToken('ETH', { decimals: 18 });
  await admin.putToken('BTC', { decimals: 8 });
  await admin.putInstrument('ETH-USDC-SPOT', { base: 'ETH', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 250, minQuoteNotional: '10' });
  await admin.putInstrument('BTC-USDC-SPOT', { base: 'BTC', quote: 'USDC', type: 'SPOT', takerFeeTenthBp: 100 });
  // The benchmarks hold hundreds of open RFQs per taker at once (the close-lateness burst): lift
  // the per-account cap (default 20) so it measures the engine, not the limit.
  await admin.putSettings({ maxOpenRfqsPerAccount: 10_000, ...settings });
}

async function signIn(url: string): Promise<{ address: string; signer: Signer }> {
  const account = privateKeyToAccount(generatePrivateKey());
  const client = new RfqClient(url);
  const login = await client.signIn(account);
  return { address: account.address, signer: new Signer({ accessKey: login.accessKey, secret: login.secret }) };
}

export async function makeMakers(url: string, admin: AdminClient, count: number): Promise<Actor[]> {
  return inParallel(Array.from({ length: count }, (_, i) => i), 8, async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    // promised: needs no on-chain wrapper per maker (permit2 requires a factory-deployed spender),
    // and the quote and accept paths measured here are the same for every mode.
    const { makerId } = await admin.putMaker(account.address, { active: true, pairs: ['ETH-USDC', 'BTC-USDC'], settlementModes: ['promised'] });
    const client = new RfqClient(url);
    const login = await client.signIn(account);
    if (!login.makerId) throw new Error('maker key is not maker-scoped');
    return { address: account.address, signer: new Signer({ accessKey: login.accessKey, secret: login.secret }), makerId };
  });
}

export async function makeTakers(url: string, admin: AdminClient, count: number, usdc: string): Promise<Actor[]> {
  return inParallel(Array.from({ length: count }, (_, i) => i), 8, async () => {
    const { address, signer } = await signIn(url);
    await admin.adjustBalance({ address, token: 'USDC', amount: usdc, memo: 'benchmark funding' });
    return { address, signer, makerId: null };
  });
}

export interface CreatedRfq {
  rfqId: string;
  auctionEndsAt: number;
  taker: Actor;
}

export async function createRfq(client: HttpClient, taker: Actor, body: Record<string, unknown>): Promise<CreatedRfq> {
  const created = await client.json<{ rfqId: string; auctionEndsAt: number }>(taker.signer.request('POST', '/v1/rfq/requests', body));
  return { rfqId: created.rfqId, auctionEndsAt: created.auctionEndsAt, taker };
}

export function quoteBody(rfqId: string, price: string): Record<string, unknown> {
  return { rfqId, instrumentId: INSTRUMENT, side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: price } };
}
