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
import { startNode, type RunningNode, type NodeOptions } from './node.ts';
import { embeddedVenueKeys } from './embedded-secrets.ts';
import { seedEmbeddedPerpInstruments, seedEmbeddedReferenceData, startEmbeddedChain } from './embedded-stack.ts';
import { approveOmnibusAgent, depositDemoTakerToV0, fundDemoTakerAtVenue, startEmbeddedVenue, venueFaucetOf, type EmbeddedVenue } from './embedded-venue.ts';
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
  const logger = pino({ level, redact: ['req.headers.authorization', '*.secret', '*.adminToken'] });
  const step = (message: string) => process.stdout.write(`• ${message}\n`);
  let adminToken = config.adminToken;
  let secretKey = config.secretKey;
  if (config.mode === 'embedded') {
    step(`data directory ${config.dataDir}`);
    const generated = await embeddedSecrets(config.dataDir);
    adminToken ??= generated.adminToken;
    secretKey ??= generated.secretKey;
  }
  if (!adminToken || !secretKey) throw new Error('unreachable: config validation requires secrets in production');
  const storeDir = path.join(config.dataDir, 'pglite');
  if (!config.databaseUrl) await mkdir(storeDir, { recursive: true });
  let devnet: DevnetStack | null = null;
  let chain: ChainSettings;
  if (config.mode === 'embedded' && !config.chainRpcUrl) {
    step('starting the anvil devnet and deploying the contracts');
    devnet = await startEmbeddedChain(config.dataDir, { confirmations: config.chain.confirmations, pollIntervalMs: config.chain.pollIntervalMs, custodyKey: config.chain.custodyKey });
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
  if (config.mode === 'embedded' && !config.venueUrl) {
    step(`starting the venue simulator (${config.venue.network})`);
    embeddedVenue = await startEmbeddedVenue(config.dataDir, { network: config.venue.network, builderAddress: config.venue.builderAddress });
    step(`venue simulator at ${embeddedVenue.url}, builder ${embeddedVenue.builderAddress}`);
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
    secretKey,
    siweDomain: config.siweDomain,
    chainId: config.chainId,
    rateLimit: config.rateLimit,
    ws: config.ws,
    http: config.http,
    workers: config.workers,
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
        }
      : {}),
  });
  if (devnet) {
    await seedEmbeddedReferenceData(node.context.service, devnet);
    step('seeded tokens (USDC, ETH, BTC on the devnet) and instruments ETH-USDC-SPOT, BTC-USDC-SPOT');
  }
  if (embeddedVenue) {
    await seedEmbeddedPerpInstruments(node.context.service);
    step('seeded perps ETH-USDC-PERP, BTC-USDC-PERP on the venue simulator');
  }
  step(`listening on ${node.url}`);
  let demo: DemoStack | null = null;
  if (devnet) {
    try {
      demo = await startDemoStack({
        dataDir: config.dataDir,
        devnet,
        context: node.context,
        url: node.url,
        siweDomain: config.siweDomain,
        chainId: config.chainId,
        logger,
        step,
        startMakers: config.demoMakers,
      });
      if (embeddedVenue) step(`demo taker at the venue: ${await fundDemoTakerAtVenue(embeddedVenue, config.dataDir)}`);
      if (embeddedVenue && v0?.venue) step(`demo taker on /v0: ${await fundDemoTakerOnV0(embeddedVenue, config.dataDir, v0.venue.omnibusKey, node)}`);
    } catch (error) {
      process.stderr.write(`rfq-service: the demo makers and taker could not be set up: ${error instanceof Error ? error.message : String(error)}\n`);
      await demo?.stop();
      await node.close();
      await devnet.stop();
      await embeddedVenue?.stop();
      process.exit(1);
    }
  }
  const readySecs = ((performance.now() - startedAt) / 1000).toFixed(1);
  process.stdout.write(`\nrfq-service ready (${config.mode}) in ${readySecs} s\n  REST      ${node.url}/v1\n  WebSocket ${node.url.replace('http', 'ws')}/v1/rfq/ws\n  OpenAPI   ${node.url}/openapi.json\n  admin     ${node.url}/admin/v1  (token: ${config.mode === 'embedded' ? adminToken : '<RFQ_ADMIN_TOKEN>'})\n`);
  if (devnet) process.stdout.write(`  devnet    ${devnet.settings.rpcUrl}  (chain id ${devnet.devnet.chainId})\n`);
  if (embeddedVenue) process.stdout.write(`  venue     ${embeddedVenue.url}  (simulator, ${embeddedVenue.network})\n  builder   ${embeddedVenue.builderAddress}\n`);
  if (demo) {
    const { taker } = demo;
    process.stdout.write(
      `  demo makers ${demo.makers.length} (RFQ_DEMO_MAKERS=0 to start none)\n` +
        `  demo taker  ${taker.address}\n    accessKey ${taker.accessKey}\n    secret    ${taker.secret}\n` +
        `    login:    npm run rfq -- --url ${node.url} login --access-key ${taker.accessKey} --secret ${taker.secret}\n` +
        (embeddedVenue && v0?.venue ? `    /v0:      RFQ_URL=${node.url} RFQ_V0_KEY=$(cat ${path.join(config.dataDir, 'demo-taker-key')}) npm run v0 -- getBalances\n` : '') +
        '    then:     npm run rfq -- buy 0.5 ETH-USDC --window 5s\n',
    );
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: draining and stopping\n`);
    const timer = setTimeout(() => process.exit(1), config.shutdownGraceMs);
    timer.unref();
    // Makers first: they hold sockets into the node and may be relaying a settlement.
    await demo?.stop();
    await node.close();
    await devnet?.stop();
    await embeddedVenue?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

await main();

/**
 * The demo taker's `/v0` balance: a spotSend to the omnibus (once per data directory), then
 * ready only when the omnibus worker has credited it, so `npm run v0 -- createOrder` works at once.
 */
async function fundDemoTakerOnV0(venue: EmbeddedVenue, dataDir: string, omnibusKey: string, node: RunningNode): Promise<string> {
  const { outcome, taker } = await depositDemoTakerToV0(venue, dataDir, privateKeyToAccount(omnibusKey as Hex).address);
  if (!node.v0Worker) return `${outcome} (no v0 worker on this node to credit it)`;
  const deadline = Date.now() + 60_000;
  while (!(await node.store.db.selectFrom('venue_deposits').select('hash').where('from_address', '=', getAddress(taker)).executeTakeFirst())) {
    if (Date.now() > deadline) throw new Error('the demo taker /v0 deposit was not credited within 60 s');
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
    await approveOmnibusAgent(embeddedVenue, keys);
    step('/v0: omnibus API wallet approved at the venue simulator');
  }
  return { defaultLayout: config.v0.layout, venue: { url: venueUrl, omnibusKey: keys.omnibusKey, agentKey: keys.agentKey, network: config.venue.network } };
}
