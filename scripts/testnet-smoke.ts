/**
 * The testnet smoke test: `npm run smoke:testnet` (or `node scripts/testnet-smoke.ts`). One perp
 * RFQ and one `/v0` order through a service started here, against Hyperliquid's public testnet
 * (`SMOKE_VENUE_URL`, default https://api.hyperliquid-testnet.xyz), with testnet keys from the
 * environment (USAGE). It spends testnet funds (fees, the spread of two small trades) and is never
 * run in CI; test/scripts/testnet-smoke.test.ts runs it against the venue simulator.
 *
 * Steps, each named in the summary:
 *  1. service: `RFQ_MODE=embedded` with `VENUE_URL` (PGlite and an anvil devnet in a fresh data
 *     directory, the venue outside), then the operator's part: the perp listed, the maker
 *     registered for it, the omnibus's API wallet approved unless the venue lists it;
 *  2. builder: its perps account value (the venue approves no builder fee below 100 USDC), the
 *     traders' margin, and the taker's `approveBuilderFee` for the perp's fee;
 *  3. perp RFQ: the reference maker quotes (its pre-signed ALO and cancel), the taker CLI's flow
 *     accepts with its signed IOC and follows the RFQ to its end state, which must be SETTLED;
 *  4. perp clean-up: the maker's orders left resting cancelled, the position each trader gained
 *     closed with a reduce-only IOC;
 *  5. /v0 order: the taker's `/v0` balance topped up by `spotSend` to the omnibus if short, then
 *     one flat-layout IOC buy below the book (so nothing fills) and its outcome;
 *  6. /v0 clean-up: what step 5 deposited withdrawn back to the taker;
 *  7. service stop: SIGTERM, drained.
 * Exit status: 0 every step passed; 1 a step failed (named on stderr); 2 usage (a key missing).
 * The `/_sim/*` control surface of a simulator is never used here: accounts are funded beforehand.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ExchangeClient, HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { ReferenceMaker } from '../examples/maker/maker.ts';
import { AdminClient } from '../src/client/admin-client.ts';
import { onPerpGrid, type PerpAsset, type VenueTouch } from '../src/client/perp-order.ts';
import { PerpTaker } from '../src/client/perp-taker.ts';
import { RfqClient } from '../src/client/rfq-client.ts';
import { formatAmount, parseAmount } from '../src/domain/money/index.ts';
import { PRICE_DECIMALS, priceToGrid, venueDecimal, venueUnitsDown } from '../src/domain/v0/venue-grid.ts';
import { belowMinimum, BUILDER_MIN_ACCOUNT_VALUE_USDC } from '../src/runtime/builder-funding.ts';
import { approveOmnibusAgent } from '../src/runtime/embedded-venue.ts';
import { outcome } from '../src/runtime/rfq-cli-format.ts';
import { trade } from '../src/runtime/rfq-cli-trade.ts';
import { runV0Cli } from '../src/runtime/v0-cli.ts';

const TESTNET_URL = 'https://api.hyperliquid-testnet.xyz';
const ROOT = path.resolve(import.meta.dirname, '..');
const MAIN = path.join(ROOT, 'src/runtime/main.ts');

const KEYS = {
  SMOKE_BUILDER_KEY: 'the builder account (the service\'s RFQ_VENUE_BUILDER_ADDRESS is its address); at least 100 USDC of perps account value',
  SMOKE_MAKER_KEY: 'the maker: perp USDC margin at the venue; quotes and signs its ALO and cancel',
  SMOKE_TAKER_KEY: 'the taker: perp USDC margin and 15 spot USDC at the venue; approves the builder fee, signs its IOC, trades on /v0',
  SMOKE_OMNIBUS_KEY: 'the /v0 omnibus venue account (RFQ_VENUE_OMNIBUS_KEY); must hold something at the venue',
  SMOKE_OMNIBUS_AGENT_KEY: 'the omnibus\'s API wallet (RFQ_VENUE_AGENT_KEY); approved by the omnibus here if the venue does not list it',
} as const;
type KeyName = keyof typeof KEYS;

const USAGE = `usage: npm run smoke:testnet   (or: node scripts/testnet-smoke.ts)

Runs one perp RFQ and one /v0 order through a service started here, against Hyperliquid's
public testnet. It spends testnet funds (fees and the spread of two small trades); never run it
in CI. Required, each a 0x-prefixed 32-byte hex private key of a testnet account:
${Object.entries(KEYS).map(([name, what]) => `  ${name.padEnd(24)}${what}`).join('\n')}
Optional:
  SMOKE_VENUE_URL         the venue (default ${TESTNET_URL}); signed for testnet
  SMOKE_PERP_COIN         the perp traded (default ETH; its book needs a spread of two ticks or more)
  SMOKE_V0_BASE           the /v0 spot pair's base token, quoted in USDC (default HYPE)
exit status: 0 every step passed, 1 a step failed (named), 2 usage
`;

/** The builder fee the smoke's perp carries, tenths of a bp (the embedded stack's ETH perp's). */
const BUILDER_FEE_TENTH_BP = 25;
/** Perps account value each trader needs for the smoke's trade and its closing order, USDC. */
const MIN_TRADER_ACCOUNT_VALUE_USDC = 20;
/** The perp trade's notional at the venue's best ask, micro-USDC: above the venue's $10 minimum. */
const PERP_NOTIONAL_MICRO_USDC = 15_000_000n;
/** The maker's full spread, bp: wide enough that its ALO lands inside the venue's book, clamped there. */
const MAKER_SPREAD_BP = 10;
const MAKER_ALIAS = 'smoke-maker';
/** The auction window: room for the maker's venue reads and quote over a public network. */
const RFQ_WINDOW_MS = 10_000;
/** How far past the touch a closing reduce-only IOC is priced, percent: it fills on a thin book. */
const CLOSE_SLIPPAGE_PCT = 5n;
/** The `/v0` order's value (USDC x 10^8) and the `/v0` USDC balance it needs (x 10^8). */
const V0_ORDER_USDC = 12n * 10n ** 8n;
const V0_FUNDING_USDC = 15n * 10n ** 8n;
/** The `/v0` IOC's price as a share of the best bid, percent: below the book, so nothing fills. */
const V0_PRICE_PCT = 80n;
const SERVICE_READY_MS = 180_000;
const SERVICE_STOP_MS = 30_000;
const V0_ORDER_WAIT_MS = 60_000;
const V0_WITHDRAWAL_WAIT_MS = 120_000;

interface Settings {
  keys: Record<KeyName, Hex>;
  venueUrl: string;
  coin: string;
  v0Base: string;
}

/** The settings, or every problem with them (each missing or malformed key named). */
function readSettings(env: Record<string, string | undefined>): Settings | { problems: string[] } {
  const problems: string[] = [];
  const keys = {} as Record<KeyName, Hex>;
  for (const name of Object.keys(KEYS) as KeyName[]) {
    const value = env[name];
    if (!value) problems.push(`${name} is not set`);
    else if (!/^0x[0-9a-fA-F]{64}$/.test(value)) problems.push(`${name} must be 0x followed by 64 hex digits`);
    else keys[name] = value as Hex;
  }
  if (problems.length === 0) {
    const addresses = (Object.keys(KEYS) as KeyName[]).map((name) => privateKeyToAccount(keys[name]).address);
    if (new Set(addresses).size !== addresses.length) problems.push('the five keys must be five different accounts');
  }
  if (problems.length > 0) return { problems };
  return { keys, venueUrl: (env.SMOKE_VENUE_URL || TESTNET_URL).replace(/\/$/, ''), coin: env.SMOKE_PERP_COIN || 'ETH', v0Base: env.SMOKE_V0_BASE || 'HYPE' };
}

// ---------------------------------------------------------------------------------------------
// The service, as a child process

interface Service {
  url: string;
  adminToken: string;
  child: ChildProcess;
  logFile: string;
}

async function logTail(file: string, lines = 30): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').slice(-lines).join('\n');
}

/** `npm start` in embedded mode on `workDir/data`, its venue the given one; resolves at its ready banner. */
async function startService(settings: Settings, workDir: string): Promise<Service> {
  const adminToken = `smoke_${randomBytes(16).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {};
  // Settings of another deployment in this shell must not leak into the smoke's node (an unknown RFQ_* is refused anyway).
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('RFQ_') && !name.startsWith('SMOKE_') && !['DATABASE_URL', 'CHAIN_RPC_URL', 'VENUE_URL', 'HOST', 'PORT'].includes(name)) env[name] = value;
  }
  Object.assign(env, {
    RFQ_MODE: 'embedded',
    RFQ_DATA_DIR: path.join(workDir, 'data'),
    // Any free port: the ready banner names it.
    PORT: '0',
    VENUE_URL: settings.venueUrl,
    RFQ_VENUE_NETWORK: 'testnet',
    RFQ_VENUE_BUILDER_ADDRESS: privateKeyToAccount(settings.keys.SMOKE_BUILDER_KEY).address,
    RFQ_VENUE_OMNIBUS_KEY: settings.keys.SMOKE_OMNIBUS_KEY,
    RFQ_VENUE_AGENT_KEY: settings.keys.SMOKE_OMNIBUS_AGENT_KEY,
    RFQ_ADMIN_TOKEN: adminToken,
    // The smoke's maker is the only one: demo makers would compete for the RFQ.
    RFQ_DEMO_MAKERS: '0',
  });
  const logFile = path.join(workDir, 'service.log');
  const log = createWriteStream(logFile);
  // Its own process group, so a node that hangs on stop is killed with its anvil.
  const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const service = { url: '', adminToken, child, logFile };
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready banner within ${SERVICE_READY_MS / 1000} s (log: ${logFile})`)), SERVICE_READY_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /rfq-service ready[^\n]*\n\s+REST\s+(http:\/\/\S+)\/v1\n/.exec(output)?.[1];
      if (url) {
        service.url = url;
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      void logTail(logFile).then((tail) => reject(new Error(`the service exited (${code}) before it was ready:\n${tail}`)));
    });
  }).catch(async (error: unknown) => {
    // The reason it never became ready is the news, not how it stopped.
    await stopService(service).catch(() => undefined);
    throw error;
  });
  return service;
}

/** SIGTERM (the node drains and stops its anvil); the whole group is killed if it is not gone in time. */
async function stopService(service: Service): Promise<string> {
  const { child } = service;
  if (child.exitCode !== null || child.signalCode !== null) return `already exited (${child.exitCode ?? child.signalCode})`;
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }, SERVICE_STOP_MS);
  const code = await exited;
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the service exited with ${code} on SIGTERM (log: ${service.logFile})`);
  return 'drained and stopped';
}

// ---------------------------------------------------------------------------------------------
// Venue reads and the clean-up orders (signed with each trader's own key)

function venueTransport(settings: Settings): HttpTransport {
  return new HttpTransport({ apiUrl: settings.venueUrl, isTestnet: true, timeout: 10_000 });
}

async function accountValue(info: InfoClient, user: Address): Promise<string> {
  return (await info.clearinghouseState({ user })).marginSummary.accountValue;
}

/** The user's signed position in `coin`, in units of the coin's size grid. */
async function positionOf(info: InfoClient, user: Address, asset: PerpAsset): Promise<bigint> {
  const entry = (await info.clearinghouseState({ user })).assetPositions.find((p) => p.position.coin === asset.coin);
  return entry ? parseAmount(entry.position.szi, asset.szDecimals, { field: 'szi', signed: true }) : 0n;
}

async function restingOids(info: InfoClient, user: Address, coin: string): Promise<Set<number>> {
  return new Set((await info.openOrders({ user })).filter((o) => o.coin === coin).map((o) => o.oid));
}

/** Undoes `gained` (size units, signed) with a reduce-only IOC priced past the touch. */
async function closeGained(exchange: ExchangeClient, asset: PerpAsset, touch: VenueTouch, gained: bigint): Promise<void> {
  const buy = gained < 0n;
  const edge = buy ? touch.bestAsk : touch.bestBid;
  if (edge === null) throw new Error(`the venue's ${asset.coin} book has no ${buy ? 'asks' : 'bids'} to close against`);
  const price = onPerpGrid(buy ? (edge * (100n + CLOSE_SLIPPAGE_PCT)) / 100n : (edge * (100n - CLOSE_SLIPPAGE_PCT)) / 100n, asset.szDecimals, buy ? 'up' : 'down');
  const size = buy ? -gained : gained;
  await exchange.order({ orders: [{ a: asset.index, b: buy, p: formatAmount(price, 6), s: formatAmount(size, asset.szDecimals), r: true, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' });
}

/** The smallest size on the coin's grid worth `PERP_NOTIONAL_MICRO_USDC` at the best ask. */
function perpSize(touch: VenueTouch, asset: PerpAsset): string {
  if (touch.bestAsk === null || touch.bestBid === null) throw new Error(`the venue's ${asset.coin} book is one-sided or empty`);
  const scale = 10n ** BigInt(asset.szDecimals);
  return formatAmount((PERP_NOTIONAL_MICRO_USDC * scale + touch.bestAsk - 1n) / touch.bestAsk, asset.szDecimals);
}

// ---------------------------------------------------------------------------------------------
// /v0 through the v0 CLI's own calls

interface V0Reply {
  code: number;
  json: Record<string, unknown>;
}

async function v0(service: Service, key: Hex, args: string[]): Promise<V0Reply> {
  const lines: string[] = [];
  const code = await runV0Cli(args, { RFQ_URL: service.url, RFQ_V0_KEY: key }, (line) => lines.push(line));
  return { code, json: JSON.parse(lines.join('\n')) as Record<string, unknown> };
}

async function v0Ok(service: Service, key: Hex, args: string[]): Promise<Record<string, unknown>> {
  const reply = await v0(service, key, args);
  if (reply.code !== 0) throw new Error(`/v0 ${args[0]} refused: ${JSON.stringify(reply.json)}`);
  return reply.json;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

// ---------------------------------------------------------------------------------------------
// The run

interface StepResult {
  name: string;
  status: 'ok' | 'FAILED' | 'skipped';
  detail: string;
  secs: number;
}

const say = (line: string) => process.stdout.write(`${line}\n`);

async function run(settings: Settings): Promise<StepResult[]> {
  const results: StepResult[] = [];
  const step = async (name: string, work: (() => Promise<string>) | null): Promise<boolean> => {
    if (work === null) {
      results.push({ name, status: 'skipped', detail: 'an earlier step failed', secs: 0 });
      return false;
    }
    say(`\n== ${name}`);
    const startedAt = performance.now();
    try {
      const detail = await work();
      results.push({ name, status: 'ok', detail, secs: (performance.now() - startedAt) / 1000 });
      say(`ok: ${detail}`);
      return true;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      results.push({ name, status: 'FAILED', detail, secs: (performance.now() - startedAt) / 1000 });
      say(`FAILED: ${detail}`);
      return false;
    }
  };

  const { keys, coin } = settings;
  const instrumentId = `${coin}-USDC-PERP`;
  const builder = privateKeyToAccount(keys.SMOKE_BUILDER_KEY).address;
  const maker = privateKeyToAccount(keys.SMOKE_MAKER_KEY);
  const taker = privateKeyToAccount(keys.SMOKE_TAKER_KEY);
  const venue = { url: settings.venueUrl, network: 'testnet' as const };
  const transport = venueTransport(settings);
  const info = new InfoClient({ transport });
  const exchangeOf = (wallet: PrivateKeyAccount) => new ExchangeClient({ transport, wallet });
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'rfq-testnet-smoke-'));
  let service: Service | null = null;
  let client: RfqClient | null = null;
  let perpTaker: PerpTaker | null = null;
  let before: { asset: PerpAsset; taker: bigint; maker: bigint; makerOrders: Set<number> } | null = null;
  let deposited = 0n;
  let boughtOnV0 = false;

  const stopOnSignal = () => {
    say('interrupted: killing the service');
    try {
      if (service?.child.pid) process.kill(-service.child.pid, 'SIGKILL');
    } catch {
      // gone already
    }
    process.exit(130);
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);

  const started = await step('service', async () => {
    service = await startService(settings, workDir);
    const admin = new AdminClient(service.url, service.adminToken);
    // The operator's part, as on any node with an outside venue: list the perp, register the maker.
    await admin.putInstrument(instrumentId, { base: coin, quote: 'USDC', type: 'PERP', takerFeeTenthBp: BUILDER_FEE_TENTH_BP, minQuoteNotional: '10' });
    await admin.putMaker(maker.address, { active: true, pairs: [`${coin}-USDC`], settlementModes: ['perp'] });
    const agent = await approveOmnibusAgent(venue, { omnibusKey: keys.SMOKE_OMNIBUS_KEY, agentKey: keys.SMOKE_OMNIBUS_AGENT_KEY }, { simulator: false });
    return `listening on ${service.url} (log ${service.logFile}); ${instrumentId} listed, maker ${maker.address} registered, omnibus API wallet ${agent}`;
  });

  const funded = await step('builder', !started ? null : async () => {
    const value = await accountValue(info, builder);
    if (belowMinimum(value, BUILDER_MIN_ACCOUNT_VALUE_USDC)) {
      throw new Error(`builder ${builder} holds ${value} USDC of perps account value; the venue approves no builder fee below ${BUILDER_MIN_ACCOUNT_VALUE_USDC} USDC: fund its perps account`);
    }
    for (const [who, address] of [['maker', maker.address], ['taker', taker.address]] as const) {
      const margin = await accountValue(info, address);
      if (belowMinimum(margin, MIN_TRADER_ACCOUNT_VALUE_USDC)) throw new Error(`the ${who} ${address} holds ${margin} USDC of perps account value; the smoke needs ${MIN_TRADER_ACCOUNT_VALUE_USDC}`);
    }
    client = new RfqClient(service!.url);
    await client.signIn(taker);
    perpTaker = await PerpTaker.connect(client, taker, { ...venue, builderAddress: builder });
    const listed = (await client.instruments()).instruments.find((i) => i.instrumentId === instrumentId);
    if (!listed) throw new Error(`the service does not list ${instrumentId}`);
    const approved = await perpTaker.ensureBuilderFee(listed.takerFeeTenthBp);
    return `builder ${builder} holds ${value} USDC of perps account value; the taker ${approved === null ? 'had already approved' : 'approved'} a builder fee of ${listed.takerFeeTenthBp} tenths of a bp`;
  });

  await step('perp RFQ', !funded ? null : async () => {
    const asset = await perpTaker!.venue.asset(coin);
    before = { asset, taker: await positionOf(info, taker.address, asset), maker: await positionOf(info, maker.address, asset), makerOrders: await restingOids(info, maker.address, coin) };
    const size = perpSize(await perpTaker!.venue.touch(coin), asset);
    const referenceMaker = new ReferenceMaker({
      baseUrl: service!.url,
      privateKey: keys.SMOKE_MAKER_KEY,
      // A perp is priced from the venue's book: referencePrice and levelSize are not used.
      instruments: [{ instrumentId, referencePrice: '1', spreadBp: MAKER_SPREAD_BP, maxBaseQty: size, levelSize: size }],
      venue,
      alias: MAKER_ALIAS,
      name: 'maker',
      log: (_level, message) => say(`  ${message}`),
    });
    try {
      await referenceMaker.start();
      const result = await trade(client!, { side: 'BUY', baseQty: size, instrumentId, autoAccept: false, windowMs: RFQ_WINDOW_MS, makers: [MAKER_ALIAS], noAccept: false, webSocket: true, perp: perpTaker!, timeoutMs: 120_000 }, (line) => say(`  taker: ${line}`));
      const end = outcome(result.rfq, result.perpFill);
      if (result.rfq.status !== 'SETTLED') throw new Error(`the RFQ ended ${end}`);
      return end;
    } finally {
      await referenceMaker.stop();
    }
  });

  await step('perp clean-up', before === null ? null : async () => {
    const { asset, makerOrders } = before!;
    const done: string[] = [];
    // Anything of the maker's the smoke left resting (its ALO, had the service's cancel not taken it).
    const left = [...(await restingOids(info, maker.address, coin))].filter((oid) => !makerOrders.has(oid));
    if (left.length > 0) {
      await exchangeOf(maker).cancel({ cancels: left.map((oid) => ({ a: asset.index, o: oid })) });
      done.push(`cancelled ${left.length} resting maker order(s)`);
    }
    for (const [who, wallet, was] of [['taker', taker, before!.taker], ['maker', maker, before!.maker]] as const) {
      const gained = (await positionOf(info, wallet.address, asset)) - was;
      if (gained === 0n) continue;
      await closeGained(exchangeOf(wallet), asset, await perpTaker!.venue.touch(coin), gained);
      const after = await positionOf(info, wallet.address, asset);
      if (after !== was) throw new Error(`the ${who}'s ${coin} position is ${formatAmount(after, asset.szDecimals)} after its reduce-only IOC, was ${formatAmount(was, asset.szDecimals)} before the smoke`);
      done.push(`closed the ${who}'s ${formatAmount(gained, asset.szDecimals)} ${coin}`);
    }
    if ((await restingOids(info, maker.address, coin)).size > makerOrders.size) throw new Error('the maker still has orders resting that the smoke placed');
    return done.length > 0 ? done.join('; ') : 'nothing left resting, no position opened';
  });

  let v0Started = false;
  await step('/v0 order', !started ? null : async () => {
    v0Started = true;
    const key = keys.SMOKE_TAKER_KEY;
    const markets = (await v0Ok(service!, key, ['getMarkets'])).markets as Array<{ name: string; baseToken: string; quoteToken: string }>;
    const market = markets.find((m) => m.baseToken === settings.v0Base && m.quoteToken === 'USDC');
    if (!market) throw new Error(`/v0 lists no ${settings.v0Base}/USDC market`);
    const tokens = (await v0Ok(service!, key, ['getTokens'])).tokens as Array<{ name: string; szDecimals: number }>;
    const szDecimals = tokens.find((t) => t.name === settings.v0Base)!.szDecimals;
    const book = await info.l2Book({ coin: market.name });
    const bestBid = book?.levels[0][0]?.px;
    if (!bestBid) throw new Error(`the venue's ${market.name} book has no bids to price below`);
    const price = priceToGrid((venueUnitsDown(bestBid, PRICE_DECIMALS) * V0_PRICE_PCT) / 100n, szDecimals, 'down');
    const amount = (V0_ORDER_USDC * 10n ** BigInt(szDecimals) + price - 1n) / price;

    const held = await v0(service!, key, ['getBalances']);
    // A wallet that never deposited has no /v0 account yet: its balance is nothing.
    if (held.code !== 0 && held.json.code !== 'USER_NOT_FOUND') throw new Error(`/v0 getBalances refused: ${JSON.stringify(held.json)}`);
    const balances = (held.json.balances ?? []) as Array<{ token: string; availableFloat: string }>;
    const available = venueUnitsDown(balances.find((b) => b.token === 'USDC')?.availableFloat ?? '0', PRICE_DECIMALS);
    if (available < V0_FUNDING_USDC) {
      const topUp = venueDecimal(V0_FUNDING_USDC - available, PRICE_DECIMALS);
      const omnibus = privateKeyToAccount(keys.SMOKE_OMNIBUS_KEY).address;
      await v0Ok(service!, key, ['deposit', 'token=USDC', `amount=${topUp}`, '--omnibus', omnibus, '--venue-url', settings.venueUrl, '--network', 'testnet']);
      deposited = V0_FUNDING_USDC - available;
      say(`  deposited ${topUp} USDC to /v0 (spotSend to the omnibus ${omnibus})`);
    }
    const fields = ['side=buy', 'orderType=limit', `baseToken=${settings.v0Base}`, 'quoteToken=USDC', `amount=${venueDecimal(amount, szDecimals)}`, `price=${venueDecimal(price, PRICE_DECIMALS)}`];
    const cloid = (await v0Ok(service!, key, ['createOrder', ...fields, '--layout', 'flat'])).orderId as string;
    say(`  createOrder ${fields.join(' ')}: ${cloid} (best bid ${bestBid})`);
    const order = await until(`the /v0 order ${cloid} did not end`, V0_ORDER_WAIT_MS, async () => {
      const orders = (await v0Ok(service!, key, ['listDelegatedOrders', 'limit=20', '--layout', 'flat'])).orders as Array<{ orderId: string; clientOrderId?: string; status: string }>;
      const found = orders.find((o) => o.clientOrderId === cloid);
      return found && found.status !== 'pending' ? found : null;
    });
    const detail = (await v0Ok(service!, key, ['getDelegatedOrder', `orderId=${order.orderId}`, '--layout', 'flat'])).order as Record<string, unknown>;
    boughtOnV0 = order.status === 'filled' || order.status === 'partially_filled';
    const end = `${order.orderId} ${order.status}${detail.errorMessage ? ` (${String(detail.errorMessage)})` : ''}: buy ${String(detail.amountFloat)} ${settings.v0Base} at ${String(detail.priceFloat)} USDC`;
    if (order.status === 'failed') throw new Error(`the venue refused the /v0 order: ${end}`);
    return end;
  });

  await step('/v0 clean-up', !v0Started ? null : async () => {
    const notes: string[] = [];
    if (boughtOnV0) notes.push(`the order filled: its ${settings.v0Base} stays on the taker's /v0 balance`);
    if (deposited === 0n) return [...notes, 'nothing deposited, nothing to withdraw'].join('; ');
    const key = keys.SMOKE_TAKER_KEY;
    const amount = venueDecimal(deposited, PRICE_DECIMALS);
    const withdrawalId = (await v0Ok(service!, key, ['initiateWithdrawal', 'tokenSymbol=USDC', `amount=${amount}`, '--layout', 'flat'])).withdrawalId as string;
    const withdrawal = await until(`the withdrawal ${withdrawalId} did not end`, V0_WITHDRAWAL_WAIT_MS, async () => {
      const current = (await v0Ok(service!, key, ['getWithdrawalStatus', `withdrawalId=${withdrawalId}`, '--layout', 'flat'])).withdrawal as { state: string; txHash: string | null; errorMessage: string | null };
      return current.state === 'pending' ? null : current;
    });
    if (withdrawal.state !== 'completed') throw new Error(`the withdrawal of ${amount} USDC ${withdrawal.state}: ${withdrawal.errorMessage ?? 'no reason given'}`);
    return [...notes, `withdrew the ${amount} USDC deposited back to the taker (${withdrawal.txHash ?? 'no hash'})`].join('; ');
  });

  await step('service stop', service === null ? null : () => stopService(service!));
  process.removeListener('SIGINT', stopOnSignal);
  process.removeListener('SIGTERM', stopOnSignal);
  if (results.every((r) => r.status === 'ok')) await rm(workDir, { recursive: true, force: true });
  else say(`\nkept ${workDir} (the service's data directory and log)`);
  return results;
}

function summary(settings: Settings, results: StepResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  // One line per step: a detail's first line (the RFQ's outcome runs over several, printed above).
  const rows = results.map((r) => `  ${r.status.padEnd(7)} ${r.name.padEnd(width)} ${r.secs.toFixed(1).padStart(6)} s  ${r.detail.split('\n')[0]}`);
  return `\nsummary (venue ${settings.venueUrl}, testnet):\n${rows.join('\n')}\n`;
}

const settings = readSettings(process.env);
if ('problems' in settings) {
  process.stderr.write(`testnet-smoke: ${settings.problems.join('; ')}\n\n${USAGE}`);
  process.exit(2);
}
const results = await run(settings);
say(summary(settings, results));
const failed = results.filter((r) => r.status === 'FAILED');
if (failed.length > 0) {
  process.stderr.write(`testnet-smoke: FAILED at ${failed.map((r) => r.name).join(', ')}\n`);
  process.exit(1);
}
say('testnet-smoke: all steps passed');
// The maker's and taker's sockets are closed; exit now rather than wait on the clients' timers.
process.exit(0);
