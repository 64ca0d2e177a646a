/**
 * `npm start`: reads the configuration and runs one node. In embedded mode (the default) the
 * store is PGlite under the data directory and secrets are generated there; production mode
 * starts nothing embedded and refuses to start without its settings.
 */
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { embeddedSecrets } from './embedded-secrets.ts';
import { DataDirError, secureDataDir } from './data-dir.ts';
import { lockDataDir, type DataDirLock } from './data-dir-lock.ts';
import { chooseEmbeddedPorts, keepEmbeddedPorts, PortBusyError } from './embedded-ports.ts';
import { startNode, type RunningNode, type NodeOptions } from './node.ts';
import { embeddedVenueKeys } from './embedded-secrets.ts';
import { seedEmbeddedPerpInstruments, seedEmbeddedReferenceData, startEmbeddedChain } from './embedded-stack.ts';
import { approveOmnibusAgent, depositDemoTakerToV0, fundDemoMakerAtVenue, fundDemoTakerAtVenue, startEmbeddedVenue, venueFaucetOf, type EmbeddedVenue } from './embedded-venue.ts';
import { startDemoStack, type DemoStack } from './demo-stack.ts';
import type { ChainSettings } from '../chain/chain-context.ts';
import type { DevnetStack } from '../chain/devnet-stack.ts';
import { getAddress, parseGwei, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

async function main(): Promise<void> {
  const startedAt = performance.now();
  let config: Readonly<Config>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`rfq-service: refusing to start, ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // The embedded stack's demo makers send a request or two a second each: unless a level was
  // asked for, keep the request log out of the console so the start-up steps stay readable.
  const level = config.mode === 'embedded' && !process.env.RFQ_LOG_LEVEL ? 'warn' : config.logLevel;
  // Ctrl-C in a terminal signals the whole process group: anvil and the venue simulator stop at
  // once while the node still drains, so its workers' last calls to them fail. Those failures are
  // the stop itself, not faults: while draining an error is logged as its type and first line,
  // never with a stack trace.
  let draining = false;
  const logger = pino({
    level,
    redact: ['req.headers.authorization', '*.secret', '*.adminToken'],
    serializers: { err: (error: Error) => (draining && error instanceof Error ? { type: error.name, message: String(error.message).split('\n')[0] } : pino.stdSerializers.err(error)) },
  });
  const step = (message: string) => process.stdout.write(`• ${message}\n`);
  let adminToken = config.adminToken;
  let secretKey = config.secretKey;
  const refuse = (error: unknown): never => {
    if (error instanceof DataDirError || error instanceof PortBusyError) {
      process.stderr.write(`rfq-service: refusing to start, ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  };
  let lock: DataDirLock | null = null;
  if (config.mode === 'embedded') {
    step(`data directory ${config.dataDir}`);
    try {
      const tightened = await secureDataDir(config.dataDir);
      if (tightened > 0) step(`data directory: ${tightened} entries were open to other users, now 0700 (directories) and 0600 (files)`);
      lock = await lockDataDir(config.dataDir);
    } catch (error) {
      refuse(error);
    }
    const generated = await embeddedSecrets(config.dataDir);
    adminToken ??= generated.adminToken;
    secretKey ??= generated.secretKey;
  }
  if (!adminToken || !secretKey) throw new Error('unreachable: config validation requires secrets in production');
  const storeDir = path.join(config.dataDir, 'pglite');
  if (!config.databaseUrl) await mkdir(storeDir, { recursive: true });
  const embeddedDevnet = config.mode === 'embedded' && !config.chainRpcUrl;
  const embeddedSim = config.mode === 'embedded' && !config.venueUrl;
  const ports = await chooseEmbeddedPorts(config.dataDir, config.host, { node: config.port, ...config.embeddedPorts }, { devnet: embeddedDevnet, venueSim: embeddedSim }, step).catch(refuse);
  let devnet: DevnetStack | null = null;
  let chain: ChainSettings;
  if (embeddedDevnet) {
    step('starting the anvil devnet and deploying the contracts');
    devnet = await startEmbeddedChain(config.dataDir, { confirmations: config.chain.confirmations, pollIntervalMs: config.chain.pollIntervalMs, custodyKey: config.chain.custodyKey, port: ports.devnet });
    chain = { ...devnet.settings, custodyMaxFeePerGasWei: parseGwei(String(config.chain.custodyMaxFeePerGasGwei)) };
    step(`devnet at ${chain.rpcUrl}: Permit2, wrapper factory and test tokens deployed`);
  } else {
    if (!config.chainRpcUrl || !config.chain.custodyKey || !config.chain.wrapperFactoryAddress) throw new Error('unreachable: config validation requires the chain settings in production');
    chain = {
      rpcUrl: config.chainRpcUrl,
      custodyKey: config.chain.custodyKey as Hex,
      permit2Address: config.chain.permit2Address as Address,
      wrapperFactoryAddress: config.chain.wrapperFactoryAddress as Address,
      xchangeAdapterAddress: config.chain.xchangeAdapterAddress as Address | null,
      confirmations: config.chain.confirmations,
      pollIntervalMs: config.chain.pollIntervalMs,
      startBlock: config.chain.startBlock,
      faucetKey: null,
      publicRpcUrl: null,
      custodyMaxFeePerGasWei: parseGwei(String(config.chain.custodyMaxFeePerGasGwei)),
    };
  }
  let embeddedVenue: EmbeddedVenue | null = null;
  if (embeddedSim) {
    step(`starting the venue simulator (${config.venue.network})`);
    embeddedVenue = await startEmbeddedVenue(config.dataDir, { network: config.venue.network, builderAddress: config.venue.builderAddress, port: ports.venueSim });
    step(`venue simulator at ${embeddedVenue.url}, builder ${embeddedVenue.builderAddress}`);
  }
  if (devnet || embeddedVenue) {
    await keepEmbeddedPorts(config.dataDir, { devnet: devnet?.devnet.port ?? ports.devnet, venueSim: embeddedVenue ? Number(new URL(embeddedVenue.url).port) : ports.venueSim });
  }
  const venueUrl = config.venueUrl ?? embeddedVenue?.url ?? null;
  const builderAddress = (config.venue.builderAddress as Address | null) ?? embeddedVenue?.builderAddress ?? null;
  const v0 = await v0Options(config, step, embeddedVenue);
  step(config.databaseUrl ? 'connecting to PostgreSQL' : 'opening embedded PGlite store');
  const node: RunningNode = await startNode({
    store: config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl, poolSize: config.databasePoolSize } : { kind: 'pglite', dataDir: storeDir },
    host: config.host,
    port: config.port,
    adminToken,
    metricsToken: config.metricsToken,
    secretKey,
    siweDomain: config.siweDomain,
    chainId: config.chainId,
    rateLimit: config.rateLimit,
    ws: config.ws,
    http: config.http,
    workers: config.workers,
    auctionsThread: config.auctionsThread,
    embedded: config.mode === 'embedded',
    logger,
    chain,
    v0,
    ...(embeddedVenue ? { embeddedVenue: { url: embeddedVenue.url, faucet: venueFaucetOf(embeddedVenue) } } : {}),
    ...(venueUrl
      ? {
          venue: {
            url: venueUrl,
            network: config.venue.network,
            builderAddress,
            requestTimeoutMs: config.venue.requestTimeoutMs,
            metaCacheMs: config.venue.metaCacheMs,
          },
          perpExecution: { resolveWindowMs: config.venue.perpResolveWindowMs },
          // Against a real venue only: the embedded stack's builder is the simulator's own.
          ...(config.mode === 'production' ? { venueChecks: { builderFundingIntervalMs: 5 * 60_000 } } : {}),
          venueWeightPerMin: config.venue.weightPerMin,
        }
      : {}),
  });
  // PGlite unpacks its initial cluster with explicit chmods (0666) that the umask cannot stop:
  // tighten once more now that the store is open (what it creates later follows the umask).
  if (config.mode === 'embedded') await secureDataDir(config.dataDir);
  if (devnet) {
    await seedEmbeddedReferenceData(node.context.service, devnet);
    step('seeded tokens (USDC, ETH, BTC on the devnet) and instruments ETH-USDC-SPOT, BTC-USDC-SPOT');
  }
  if (embeddedVenue) {
    await seedEmbeddedPerpInstruments(node.context.service);
    step('seeded perps ETH-USDC-PERP, BTC-USDC-PERP on the venue simulator');
  }
  // From here the node serves: it must not exit on a demo set-up failure. It
  // reports, retries, and `/readyz` says not ready until the set-up is done; "ready" only then.
  let setUp: string | null = devnet ? 'the embedded demo set-up is in progress' : null;
  (node.context.notReadyReasons ??= []).push(() => setUp);
  let demo: DemoStack | null = null;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    draining = true;
    process.stdout.write(`\n${signal}: draining and stopping\n`);
    const timer = setTimeout(() => process.exit(1), config.shutdownGraceMs);
    timer.unref();
    // Makers first: they hold sockets into the node and may be relaying a settlement.
    await demo?.stop();
    await node.close();
    await devnet?.stop();
    await embeddedVenue?.stop();
    await lock?.release();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  step(`listening on ${node.url}${devnet ? ' (not ready until the demo set-up is done)' : ''}`);
  if (devnet) {
    const stack = devnet;
    const retrying = (what: string) => (attempt: number, error: unknown, delayMs: number) => {
      setUp = `${what} failed (attempt ${attempt}), retrying in ${delayMs / 1000} s: ${error instanceof Error ? error.message : String(error)}`;
      process.stderr.write(`rfq-service: ${setUp}\n`);
    };
    demo = await untilDone(() => stopping, retrying('the demo makers and taker set-up'), () =>
      startDemoStack({
        dataDir: config.dataDir, devnet: stack, context: node.context, url: node.url, siweDomain: config.siweDomain, chainId: config.chainId, logger, step, startMakers: config.demoMakers,
        ...(embeddedVenue ? { venue: { url: embeddedVenue.url, network: embeddedVenue.network, fundMaker: (address: Address) => fundDemoMakerAtVenue(embeddedVenue, address) } } : {}),
      }),
    );
    const venue = embeddedVenue;
    if (venue) step(`demo taker at the venue: ${await untilDone(() => stopping, retrying('funding the demo taker at the venue'), () => fundDemoTakerAtVenue(venue, config.dataDir))}`);
    const v0Venue = v0?.venue;
    if (venue && v0Venue) step(`demo taker on /v0: ${await untilDone(() => stopping, retrying('funding the demo taker on /v0'), () => fundDemoTakerOnV0(venue, config.dataDir, v0Venue.omnibusKey, node))}`);
    setUp = null;
  }
  const readySecs = ((performance.now() - startedAt) / 1000).toFixed(1);
  process.stdout.write(`\nrfq-service ready (${config.mode}) in ${readySecs} s\n  REST      ${node.url}/v1\n  WebSocket ${node.url.replace('http', 'ws')}/v1/rfq/ws\n  OpenAPI   ${node.url}/openapi.json\n  admin     ${node.url}/admin/v1  (token: ${config.mode === 'embedded' ? adminToken : '<RFQ_ADMIN_TOKEN>'})\n`);
  if (devnet) process.stdout.write(`  devnet    ${devnet.settings.rpcUrl}  (chain id ${devnet.devnet.chainId})\n`);
  if (embeddedVenue) process.stdout.write(`  venue     ${embeddedVenue.url}  (simulator, ${embeddedVenue.network})\n  builder   ${embeddedVenue.builderAddress}\n`);
  // Where a `/v0` user deposits (docs/v0-guide.md, step 1): public, like any deposit address.
  if (v0?.venue) process.stdout.write(`  /v0 omnibus ${privateKeyToAccount(v0.venue.omnibusKey as Hex).address}\n`);
  if (demo) {
    const { taker } = demo;
    process.stdout.write(
      `  demo makers ${demo.makers.length} (RFQ_DEMO_MAKERS=0 to start none)\n` +
        `  demo taker  ${taker.address}\n    accessKey ${taker.accessKey}\n    secret    ${taker.secret}\n` +
        `    login:    npm run rfq -- --url ${node.url} login --access-key ${taker.accessKey} --secret ${taker.secret}\n` +
        (embeddedVenue && v0?.venue ? `    /v0:      RFQ_URL=${node.url} RFQ_V0_KEY=$(cat ${path.join(config.dataDir, 'demo-taker-key')}) npm run v0 -- getBalances\n` : '') +
        '    then:     npm run rfq -- buy 0.5 ETH-USDC --window 5s\n' +
        (embeddedVenue ? '    perps:    npm run rfq -- buy 0.1 ETH-USDC-PERP --window 5s   (signed with the demo taker key in the data directory)\n' : ''),
    );
  }
}

await main();

/** Runs `work` until it succeeds (backing off 1 s, 2 s ... 30 s; each failure reported), never settling once `stopped()`. */
async function untilDone<T>(stopped: () => boolean, failed: (attempt: number, error: unknown, delayMs: number) => void, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const delayMs = Math.min(30_000, 1000 * 2 ** (attempt - 1));
      failed(attempt, error, delayMs);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      // Stopping: the signal handler drains and exits; nothing after the set-up may run.
      if (stopped()) return new Promise<never>(() => undefined);
    }
  }
}

/**
 * The demo taker's `/v0` balance: a spotSend to the omnibus (once per data directory), then
 * ready only when the omnibus worker has credited it, so `npm run v0 -- createOrder` works at once.
 */
async function fundDemoTakerOnV0(venue: EmbeddedVenue, dataDir: string, omnibusKey: string, node: RunningNode): Promise<string> {
  const { outcome, taker } = await depositDemoTakerToV0(venue, dataDir, privateKeyToAccount(omnibusKey as Hex).address);
  if (!node.v0Worker) return `${outcome} (no v0 worker on this node to credit it)`;
  // The worker's reconciliation read finds a deposit whose push was lost within a minute.
  const deadline = Date.now() + 120_000;
  while (!(await node.store.db.selectFrom('venue_deposits').select('hash').where('from_address', '=', getAddress(taker)).executeTakeFirst())) {
    if (Date.now() > deadline) throw new Error('the demo taker /v0 deposit was not credited within 120 s');
    await node.v0Worker.settled();
  }
  return `${outcome}, credited`;
}

/**
 * `/v0` on the venue: the omnibus keys come from the configuration (production) or are generated
 * into the data directory (embedded). Without a venue URL `/v0` still serves login and reads, and
 * its venue operations answer SERVICE_UNAVAILABLE.
 */
async function v0Options(config: Readonly<Config>, step: (message: string) => void, embeddedVenue: EmbeddedVenue | null): Promise<NodeOptions['v0']> {
  const keys = config.v0.omnibusKey && config.v0.agentKey ? { omnibusKey: config.v0.omnibusKey, agentKey: config.v0.agentKey } : config.mode === 'embedded' ? await embeddedVenueKeys(config.dataDir) : null;
  const venueUrl = config.venueUrl ?? embeddedVenue?.url ?? null;
  if (!venueUrl || !keys) {
    step('/v0: no venue configured (VENUE_URL and RFQ_VENUE_OMNIBUS_KEY/RFQ_VENUE_AGENT_KEY); venue operations answer SERVICE_UNAVAILABLE');
    return { defaultLayout: config.v0.layout };
  }
  // The simulator is ours: approve the omnibus's API wallet there (a real venue's is approved by its owner).
  if (embeddedVenue) {
    await approveOmnibusAgent(embeddedVenue, keys, { simulator: true });
    step('/v0: omnibus API wallet approved at the venue simulator');
  }
  return { defaultLayout: config.v0.layout, venue: { url: venueUrl, omnibusKey: keys.omnibusKey, agentKey: keys.agentKey, network: config.venue.network } };
}
