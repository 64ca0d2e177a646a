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
import { startNode, type RunningNode } from './node.ts';
import { seedEmbeddedReferenceData, startEmbeddedChain } from './embedded-stack.ts';
import type { ChainSettings } from '../chain/chain-context.ts';
import type { DevnetStack } from '../chain/devnet-stack.ts';
import type { Address, Hex } from 'viem';

async function main(): Promise<void> {
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
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.secret', '*.adminToken'] });
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
    chain = devnet.settings;
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
    };
  }
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
    workers: config.workers,
    embedded: config.mode === 'embedded',
    logger,
    chain,
  });
  if (devnet) {
    await seedEmbeddedReferenceData(node.context.service, devnet);
    step('seeded tokens (USDC, ETH, BTC on the devnet) and instruments ETH-USDC-SPOT, BTC-USDC-SPOT');
  }
  step(`listening on ${node.url}`);
  process.stdout.write(`\nrfq-service ready (${config.mode})\n  REST      ${node.url}/v1\n  WebSocket ${node.url.replace('http', 'ws')}/v1/rfq/ws\n  OpenAPI   ${node.url}/openapi.json\n  admin     ${node.url}/admin/v1  (token: ${config.mode === 'embedded' ? adminToken : '<RFQ_ADMIN_TOKEN>'})\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`\n${signal}: draining and stopping\n`);
    const timer = setTimeout(() => process.exit(1), config.shutdownGraceMs);
    timer.unref();
    await node.close();
    await devnet?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

await main();
