/**
 * The living part of the embedded stack (DESIGN.md section 7): demo makers that stream ladders,
 * quote and settle, and a funded demo taker with an API key, so a newcomer can trade at once.
 * Each demo maker is the reference maker of `examples/maker/` run in-process with a key kept in
 * the data directory, gas and inventory on the devnet, its factory wrapper deployed and approved,
 * and registered as an active permit2 maker for both spot pairs. Every step is idempotent, so a
 * second start reuses keys, wrappers, registrations and the taker's funds. Embedded mode only.
 */
import path from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { maxUint256, parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { Logger } from 'pino';
import { ReferenceMaker, type MakerInstrument } from '../../examples/maker/maker.ts';
import { rfqMakerWrapperFactoryAbi, testTokenAbi } from '../chain/artifacts/index.ts';
import { connectSigner, type SigningChainClients } from '../chain/clients.ts';
import type { DevnetStack } from '../chain/devnet-stack.ts';
import { setDevnetBalance } from '../chain/faucet.ts';
import { RfqClient } from '../client/rfq-client.ts';
import type { NodeContext } from './node-context.ts';
import { putMaker } from '../services/admin/makers.ts';
import { parseAmount } from '../domain/money/index.ts';
import { keyFile } from './embedded-stack.ts';

/**
 * Three makers with different spreads and reference prices, so auctions have a real contest; on a
 * SWEEP RFQ each quotes at most a few ETH (or a fraction of a BTC), so a large one is filled by
 * several of them (`npm run rfq -- buy 3 ETH-USDC --sweep`). On a perp SWEEP each quotes a share
 * of the RFQ (35 to 45 %), so any size takes all three, the last one cut
 * (`npm run rfq -- buy 0.3 ETH-USDC-PERP --sweep`).
 */
const DEMO_MAKERS: Array<{ seed: number; spreadBp: number; eth: string; btc: string; sweepEth: string; sweepBtc: string; perpSweepShareBp: number }> = [
  { seed: 1, spreadBp: 10, eth: '3000', btc: '60000', sweepEth: '1.25', sweepBtc: '0.05', perpSweepShareBp: 4000 },
  { seed: 2, spreadBp: 16, eth: '3001.5', btc: '60030', sweepEth: '1', sweepBtc: '0.04', perpSweepShareBp: 3500 },
  { seed: 3, spreadBp: 20, eth: '2999', btc: '59980', sweepEth: '1.5', sweepBtc: '0.06', perpSweepShareBp: 4500 },
];

/** What each demo maker holds on-chain (topped up to this at every start), raw units by symbol. */
const MAKER_INVENTORY: Record<string, string> = { USDC: '10000000', ETH: '2000', BTC: '100' };
/** What the demo taker deposits to custody on its first start. */
const TAKER_DEPOSIT: Record<string, string> = { USDC: '1000000', ETH: '100', BTC: '5' };
const PAIRS = ['ETH-USDC', 'BTC-USDC'];

export interface DemoTaker {
  address: Address;
  accessKey: string;
  secret: string;
  /** How the taker was funded on this start: deposited now, credited earlier, or by adjustment. */
  funding: 'deposited' | 'already funded';
}

export interface DemoStack {
  makers: ReferenceMaker[];
  taker: DemoTaker;
  /** Stops the makers (before the node closes). */
  stop(): Promise<void>;
}

interface DemoOptions {
  dataDir: string;
  devnet: DevnetStack;
  context: NodeContext;
  url: string;
  siweDomain: string;
  chainId: number;
  logger: Logger;
  step: (message: string) => void;
  startMakers: boolean;
  /** The embedded venue simulator: the makers also quote the perps, with margin credited there. */
  venue?: DemoVenue;
}

export interface DemoVenue {
  url: string;
  network: 'mainnet' | 'testnet';
  /** Tops a demo maker's perp margin up at the venue, so its ALO orders rest. */
  fundMaker(address: Address): Promise<void>;
}

const tokenMap = (devnet: DevnetStack) => new Map(devnet.deployed.tokens.map((t) => [t.symbol, t]));

async function mined(c: SigningChainClients, hash: Hex, what: string): Promise<void> {
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== 'success') throw new Error(`${what} reverted (tx ${hash})`);
}

/** Tops `owner` up to `target` (human units) of a test token; the deployer owns the tokens. */
async function topUp(deployer: SigningChainClients, token: { address: Address; decimals: number; symbol: string }, owner: Address, target: string): Promise<void> {
  const want = BigInt(target) * 10n ** BigInt(token.decimals);
  const have = await deployer.publicClient.readContract({ address: token.address, abi: testTokenAbi, functionName: 'balanceOf', args: [owner] });
  if (have >= want) return;
  await mined(deployer, await deployer.walletClient.writeContract({ address: token.address, abi: testTokenAbi, functionName: 'mint', args: [owner, want - have] }), `mint ${token.symbol}`);
}

async function ensureWrapper(deployer: SigningChainClients, factory: Address, owner: Address): Promise<Address> {
  const read = () => deployer.publicClient.readContract({ address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'wrapperOf', args: [owner] });
  const existing = await read();
  if (BigInt(existing) !== 0n) return existing;
  await mined(deployer, await deployer.walletClient.writeContract({ address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'deploy', args: [owner] }), 'wrapper deploy');
  return read();
}

async function prepareMaker(options: DemoOptions, deployer: SigningChainClients, index: number): Promise<{ key: Hex; address: Address }> {
  const { devnet, context } = options;
  const key = await keyFile(path.join(options.dataDir, `demo-maker-${index + 1}-key`));
  const address = privateKeyToAccount(key).address;
  await setDevnetBalance({ rpcUrl: devnet.settings.rpcUrl, address, wei: parseEther('100') });
  const wrapper = await ensureWrapper(deployer, devnet.settings.wrapperFactoryAddress, address);
  const maker = await connectSigner(devnet.settings.rpcUrl, key);
  for (const token of devnet.deployed.tokens) {
    await topUp(deployer, token, address, MAKER_INVENTORY[token.symbol] ?? '0');
    const allowance = await maker.publicClient.readContract({ address: token.address, abi: testTokenAbi, functionName: 'allowance', args: [address, wrapper] });
    if (allowance < maxUint256 / 2n) await mined(maker, await maker.walletClient.writeContract({ address: token.address, abi: testTokenAbi, functionName: 'approve', args: [wrapper, maxUint256] }), 'approve wrapper');
  }
  if (options.venue) await options.venue.fundMaker(address);
  // The demo makers are the stack's own: a start lifts any suspension, or none would quote. (Trades
  // a crash cut short are not counted against them when they lapse: service-outages.ts.)
  await putMaker(context.service, address, { active: true, pairs: PAIRS, settlementModes: options.venue ? ['permit2', 'perp'] : ['permit2'], spender: wrapper, suspended: false }, context.spenderCheck);
  return { key, address };
}

function makerInstruments(spec: (typeof DEMO_MAKERS)[number], perps: boolean): MakerInstrument[] {
  return [
    { instrumentId: 'ETH-USDC-SPOT', referencePrice: spec.eth, spreadBp: spec.spreadBp, maxBaseQty: '50', sweepBaseQty: spec.sweepEth, levelSize: '5' },
    { instrumentId: 'BTC-USDC-SPOT', referencePrice: spec.btc, spreadBp: spec.spreadBp, maxBaseQty: '2', sweepBaseQty: spec.sweepBtc, levelSize: '0.25' },
    // Perps are priced from the venue's book (referencePrice and levelSize are not used).
    ...(perps
      ? [
          { instrumentId: 'ETH-USDC-PERP', referencePrice: spec.eth, spreadBp: spec.spreadBp, maxBaseQty: '20', sweepShareBp: spec.perpSweepShareBp, levelSize: '1' },
          { instrumentId: 'BTC-USDC-PERP', referencePrice: spec.btc, spreadBp: spec.spreadBp, maxBaseQty: '1', sweepShareBp: spec.perpSweepShareBp, levelSize: '0.1' },
        ]
      : []),
  ];
}

async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

/**
 * The demo taker: a key in the data directory, an API key (reused while it has a day left), and
 * on first start tokens minted to it and deposited on-chain to custody, which the chain follower
 * credits (the start waits for it, bounded).
 */
async function prepareTaker(options: DemoOptions, deployer: SigningChainClients): Promise<DemoTaker> {
  const { devnet, dataDir } = options;
  const key = await keyFile(path.join(dataDir, 'demo-taker-key'));
  const account = privateKeyToAccount(key);
  const credentialFile = path.join(dataDir, 'demo-taker-credential.json');
  const client = new RfqClient(options.url);
  const saved = await readJson<{ accessKey: string; secret: string; expiresAt: number }>(credentialFile);
  if (saved && saved.expiresAt > Date.now() + 24 * 3600_000) {
    client.credentials = { accessKey: saved.accessKey, secret: saved.secret };
  } else {
    // Signing in also creates the account, so the deposit below is attributed to it.
    const login = await client.signIn(account, { domain: options.siweDomain, chainId: options.chainId, expiresInSecs: 90 * 24 * 3600 });
    await writeFile(credentialFile, `${JSON.stringify({ accessKey: login.accessKey, secret: login.secret, expiresAt: login.expiresAt })}\n`, { mode: 0o600 });
  }
  const credentials = client.credentials!;
  const fundedFile = path.join(dataDir, 'demo-taker-funded');
  if (await readJson<unknown>(fundedFile)) return { address: account.address, ...credentials, funding: 'already funded' };

  const tokens = tokenMap(devnet);
  await setDevnetBalance({ rpcUrl: devnet.settings.rpcUrl, address: account.address, wei: parseEther('10') });
  const taker = await connectSigner(devnet.settings.rpcUrl, key);
  const custody = privateKeyToAccount(devnet.settings.custodyKey).address;
  for (const [symbol, amount] of Object.entries(TAKER_DEPOSIT)) {
    const token = tokens.get(symbol)!;
    await topUp(deployer, token, account.address, amount);
    const raw = BigInt(amount) * 10n ** BigInt(token.decimals);
    await mined(taker, await taker.walletClient.writeContract({ address: token.address, abi: testTokenAbi, functionName: 'transfer', args: [custody, raw] }), `deposit ${symbol}`);
  }
  await waitForBalances(client, TAKER_DEPOSIT, tokens);
  const funding = 'deposited';
  await writeFile(fundedFile, `${JSON.stringify({ at: Date.now(), funding })}\n`);
  return { address: account.address, ...credentials, funding };
}

/** Waits (bounded) until the chain follower has credited the deposits. */
async function waitForBalances(client: RfqClient, amounts: Record<string, string>, tokens: Map<string, { decimals: number }>): Promise<void> {
  const deadline = Date.now() + 60_000;
  const units = (token: string, amount: string) => parseAmount(amount, tokens.get(token)!.decimals, { field: token });
  for (;;) {
    const { balances } = await client.balances();
    const credited = Object.entries(amounts).every(([token, amount]) => balances.some((b) => b.token === token && b.rail === 'EVM' && units(token, b.total) >= units(token, amount)));
    if (credited) return;
    if (Date.now() > deadline) throw new Error('the demo taker deposits were not credited within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function startDemoStack(options: DemoOptions): Promise<DemoStack> {
  const { devnet, step } = options;
  if (!devnet.settings.faucetKey) throw new Error('the devnet has no faucet key');
  const deployer = await connectSigner(devnet.settings.rpcUrl, devnet.settings.faucetKey);
  const tokens = Object.fromEntries(devnet.deployed.tokens.map((t) => [t.symbol, { address: t.address, decimals: t.decimals }]));
  const makers: ReferenceMaker[] = [];
  const stop = async () => {
    await Promise.all(makers.map((m) => m.stop()));
  };
  try {
    if (options.startMakers) {
      for (const [index, spec] of DEMO_MAKERS.entries()) {
        const { key, address } = await prepareMaker(options, deployer, index);
        const maker = new ReferenceMaker({
          baseUrl: options.url,
          privateKey: key,
          rpcUrl: devnet.settings.rpcUrl,
          tokens,
          seed: spec.seed,
          instruments: makerInstruments(spec, options.venue !== undefined),
          ...(options.venue ? { venue: { url: options.venue.url, network: options.venue.network } } : {}),
          siweDomain: options.siweDomain,
          chainId: options.chainId,
          name: `demo-maker-${index + 1}`,
          // Disclosed, so a taker can name them: `npm run rfq -- buy ... --makers demo-maker-1`.
          alias: `demo-maker-${index + 1}`,
          log: (level, message) => (level === 'info' ? options.logger.debug(message) : options.logger[level](message)),
        });
        await maker.start();
        makers.push(maker);
        step(`demo-maker-${index + 1} ${address}: wrapper approved, inventory on the devnet${options.venue ? ', margin at the venue' : ''}, quoting at ${spec.spreadBp} bp`);
      }
    }
    const taker = await prepareTaker(options, deployer);
    step(`demo taker ${taker.address}: ${taker.funding}`);
    return { makers, taker, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
