/**
 * Deposit-credit latency under quote load: transfer mined -> deposit COMPLETED
 * while makers re-quote at 1,000/s. Runnable alone (`node bench/deposit-latency.ts`, `--help`);
 * bench/run.ts may call `runDepositLatency` as a phase.
 *
 * One service process (embedded mode: anvil, its chain follower with the embedded finality rule,
 * on a fresh PostgreSQL database, dropped at the end; the service's process group is stopped, so
 * its anvil goes too). Depositors are signed-in accounts with USDC and gas on the devnet; each
 * sends one transfer into custody at a time. For each: "mined" is when this process first sees
 * its receipt (polled every 20 ms from the send), "credited" when it first sees the deposit row
 * COMPLETED in the service's database (polled every 20 ms). Two runs, same process, same chain:
 *   floor  deposits with no other load;
 *   load   the same deposits while an open loop sends 1,000 re-quotes/s (scheduled-time latency,
 *          as bench/phases/quotes.ts measures them).
 * Target: load p99 <= 5 s. A figure to report, never asserted.
 * Auction closes in both runs too (their lateness should not change under the load): `closes`
 * autoAccept RFQs with no quote, their auctions ending spread over the run's first seconds, each
 * closed FAILED by the auction worker (100 per run, so that a p99 is more than the worst one); per
 * RFQ the ms from its `auctionEndsAt` to the close first seen committed (its row no longer PENDING, polled every 20 ms from a thread of the benchmark's own,
 * bench/lib/close-watch.ts, so the quote load's backlog on this loop is not measured as lateness;
 * service and benchmark share the wall clock). The floor run is repeated after the load run
 * ("floor after"), so the report shows how far two runs with no load differ from each other beside
 * how far the load run differs from them: what "unchanged" can mean on a noisy machine.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { erc20Abi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AdminClient } from '../src/client/admin-client.ts';
import { RfqClient } from '../src/client/rfq-client.ts';
import { connectSigner } from '../src/chain/clients.ts';
import { mintRawTestToken } from '../src/chain/faucet.ts';
import type { BenchDatabase } from './lib/database.ts';
import { startOwnService, type OwnService } from './lib/own-service.ts';
import { stopAllServers } from './lib/processes.ts';
import { HttpClient, inParallel, openLoop, type LoadResult, type Req } from './lib/http-load.ts';
import { startCloseWatch } from './lib/close-watch.ts';
import { round, summarize, type LatencySummary } from './lib/stats.ts';
import { createRfq, INSTRUMENT, makeMakers, makeTakers, quoteBody, type Actor, type Service } from './lib/venue.ts';

const HELP = `usage: node bench/deposit-latency.ts [options]
  --deposits <n>     deposits per run, floor and load alike (default 30)
  --closes <n>       quote-less autoAccept auctions closing during each run (default 100)
  --depositors <n>   accounts depositing concurrently, one transfer in flight each (default 3)
  --rate <n>         re-quotes per second during the load run (default 1000)
  --makers <n>       makers (default 20)     --rfqs <n>   open RFQs re-quoted (default 50)
  --pool-size <n>    the service's PostgreSQL pool (default 10)
  --service-env <RFQ_NAME=value>  a setting for the service (repeatable), e.g. RFQ_AUCTIONS_THREAD=0
  --db <url>         PostgreSQL to create the bench database on
                     (default $BENCH_DATABASE_URL or postgres://postgres@127.0.0.1:5432/test)`;

export interface DepositLatencyResult {
  deposits: number;
  depositors: number;
  floor: LatencySummary;
  load: LatencySummary;
  /** The floor run again, after the load run. */
  floorAfter: LatencySummary;
  /** Deposits of the load run not credited within the wait (counted, not in the summary). */
  uncredited: { floor: number; load: number; floorAfter: number };
  quotes: LoadResult;
  targetP99Ms: number;
  /** Auction close lateness (auctionEndsAt -> close seen committed) during each run; not closed within the wait are counted apart. */
  closes: { count: number; floor: LatencySummary; load: LatencySummary; floorAfter: LatencySummary; stamped: { floor: LatencySummary; load: LatencySummary; floorAfter: LatencySummary }; notClosed: { floor: number; load: number; floorAfter: number }; answeredAfterEnd: { floor: number; load: number; floorAfter: number } };
}

const TARGET_P99_MS = 5_000;
const POLL_MS = 20;
const CREDIT_TIMEOUT_MS = 60_000;
const DEPOSIT_RAW = 1_000_000n; // 1 USDC
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The first close-probe auction ends this long after its creation (the minimum window is 1 s). */
const CLOSE_LEAD_MS = 1500;
/** Close-probe auctions end spread over this span after the lead. */
const CLOSE_SPAN_MS = 3000;
/** How long after its auctionEndsAt a close-probe RFQ may stay PENDING before it counts as not closed. */
const CLOSE_TIMEOUT_MS = 30_000;
/** Close-probe auctions per run: enough that the p99 is not simply the worst one. */
const DEFAULT_CLOSES = 100;

interface Depositor {
  wallet: Awaited<ReturnType<typeof connectSigner>>;
  nonce: number;
}

/** Accounts with an RFQ account (signed in), ETH for gas and USDC on the devnet. */
async function makeDepositors(service: Service, count: number, deposits: number, dataDir: string): Promise<{ depositors: Depositor[]; usdc: Address; custody: Address; rpcUrl: string }> {
  const keys = Array.from({ length: count }, () => generatePrivateKey());
  const clients = await Promise.all(keys.map(async (key) => {
    const client = new RfqClient(service.url);
    await client.signIn(privateKeyToAccount(key));
    return client;
  }));
  const network = await clients[0]!.network();
  const rpcUrl = network.rpcUrl!;
  const usdc = network.tokens.find((t) => t.symbol === 'USDC')!.address as Address;
  const deployerKey = (await readFile(path.join(dataDir, 'deployer-key'), 'utf8')).trim() as Hex;
  const depositors: Depositor[] = [];
  for (const key of keys) {
    const wallet = await connectSigner(rpcUrl, key);
    await rpcCall(rpcUrl, 'anvil_setBalance', [wallet.account.address, '0x56bc75e2d63100000']); // 100 ETH
    const minted = await mintRawTestToken({ rpcUrl, ownerKey: deployerKey, token: usdc, to: wallet.account.address, raw: BigInt(2 * deposits) * DEPOSIT_RAW });
    await wallet.publicClient.waitForTransactionReceipt({ hash: minted, pollingInterval: 100 });
    depositors.push({ wallet, nonce: await wallet.publicClient.getTransactionCount({ address: wallet.account.address, blockTag: 'pending' }) });
  }
  return { depositors, usdc, custody: network.custodyAddress as Address, rpcUrl };
}

async function rpcCall<T>(rpcUrl: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await res.json()) as { result: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** `deposits` transfers, `depositors` at a time; per deposit the ms from mined (receipt seen) to COMPLETED (row seen). */
async function depositRun(db: BenchDatabase, chain: { depositors: Depositor[]; usdc: Address; custody: Address; rpcUrl: string }, deposits: number): Promise<{ latencies: number[]; uncredited: number }> {
  const latencies: number[] = [];
  let uncredited = 0;
  let next = 0;
  await Promise.all(chain.depositors.map(async (d) => {
    while (next < deposits) {
      next++;
      const hash = await d.wallet.walletClient.writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [chain.custody, DEPOSIT_RAW], nonce: d.nonce++, gas: 100_000n });
      let minedAt = 0;
      while (!minedAt) {
        if (await rpcCall<unknown>(chain.rpcUrl, 'eth_getTransactionReceipt', [hash])) minedAt = performance.now();
        else await sleep(POLL_MS);
      }
      let creditedAt = 0;
      while (!creditedAt && performance.now() - minedAt < CREDIT_TIMEOUT_MS) {
        const row = await db.pool.query<{ status: string }>('select status from deposits where tx_hash = $1', [hash.toLowerCase()]);
        if (row.rows[0]?.status === 'COMPLETED') creditedAt = performance.now();
        else await sleep(POLL_MS);
      }
      if (creditedAt) latencies.push(creditedAt - minedAt);
      else uncredited++;
    }
  }));
  return { latencies, uncredited };
}

/**
 * `count` quote-less autoAccept RFQs whose auctions end spread over CLOSE_SPAN_MS after CLOSE_LEAD_MS;
 * per RFQ the ms from its auctionEndsAt to when its row is first seen no longer PENDING.
 */
async function closeRun(db: BenchDatabase, client: HttpClient, takers: Actor[], count: number): Promise<{ latencies: number[]; stamped: number[]; notClosed: number; answeredAfterEnd: number }> {
  let answeredAfterEnd = 0;
  // Watched from a thread of its own: this loop is busy with the quote load (close-watch.ts).
  const watch = await startCloseWatch(db.url, POLL_MS, CLOSE_TIMEOUT_MS);
  await inParallel(Array.from({ length: count }, (_, i) => i), 5, async (i) => {
    const rfq = await createRfq(client, takers[i % takers.length]!, { instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: true, windowMs: CLOSE_LEAD_MS + Math.round((i * CLOSE_SPAN_MS) / count) });
    // The create itself was answered only after the auction's end: its lateness is partly the request's own queueing.
    if (Date.now() > rfq.auctionEndsAt) answeredAfterEnd++;
    watch.add(rfq.rfqId, rfq.auctionEndsAt);
    return rfq;
  });
  const seen = await watch.finish();
  return { ...seen, answeredAfterEnd };
}

export async function runDepositLatency(options: {
  service: Service;
  db: BenchDatabase;
  dataDir: string;
  deposits: number;
  depositors: number;
  rate: number;
  makers: number;
  rfqs: number;
  /** Quote-less autoAccept auctions closing during each run (default DEFAULT_CLOSES). */
  closes?: number;
  log: (line: string) => void;
}): Promise<DepositLatencyResult> {
  const closes = options.closes ?? DEFAULT_CLOSES;
  const { service, db, log } = options;
  const admin = new AdminClient(service.url, service.adminToken);
  // Long auctions: the re-quoted RFQs stay open for the whole run.
  await admin.putSettings({ maxOpenRfqsPerAccount: 10_000, maxWindowMs: 600_000 });
  const chain = await makeDepositors(service, options.depositors, options.deposits * 2, options.dataDir);
  const makers = await makeMakers(service.url, admin, options.makers);
  const takers = await makeTakers(service.url, admin, Math.min(10, options.rfqs), '1000000000');
  const client = new HttpClient(service.url);
  const created = await inParallel(Array.from({ length: options.rfqs }, (_, i) => i), 10, (i) =>
    createRfq(client, takers[i % takers.length]!, { instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', windowMs: 600_000 }),
  );
  const build = (k: number): Req => makers[(k + Math.floor(k / created.length)) % makers.length]!.signer.request('POST', '/v1/rfq/quotes', quoteBody(created[k % created.length]!.rfqId, (3000 + (k % 997) / 100).toFixed(2)));

  log(`floor: ${options.deposits} deposits, ${options.depositors} at a time, ${closes} auction closes, no other load`);
  const [floor, floorCloses] = await Promise.all([depositRun(db, chain, options.deposits), closeRun(db, client, takers, closes)]);

  log(`load: ${options.deposits} deposits and ${closes} auction closes while re-quotes run open loop at ${options.rate}/s`);
  let depositsDone = false;
  const deposits = Promise.all([depositRun(db, chain, options.deposits), closeRun(db, client, takers, closes)]).finally(() => (depositsDone = true));
  // The quote load runs in 5 s slices until the deposits are done (it starts first and outlasts them).
  const slices: LoadResult[] = [];
  let index = 0;
  do {
    const slice = await openLoop({ client, rate: options.rate, durationMs: 5_000, build, startIndex: index });
    index += slice.sent;
    slices.push(slice);
  } while (!depositsDone);
  const [load, loadCloses] = await deposits;

  log(`floor after: ${options.deposits} deposits and ${closes} auction closes, no other load again`);
  const [floorAfter, floorAfterCloses] = await Promise.all([depositRun(db, chain, options.deposits), closeRun(db, client, takers, closes)]);
  const quoteLatencies = slices.map((s) => s.latency);
  const quotes: LoadResult = {
    ...slices[0]!,
    durationMs: slices.reduce((t, s) => t + s.durationMs, 0),
    sent: slices.reduce((t, s) => t + s.sent, 0),
    ok: slices.reduce((t, s) => t + s.ok, 0),
    failed: slices.reduce((t, s) => t + s.failed, 0),
    throughput: slices.reduce((t, s) => t + s.ok, 0) / (slices.reduce((t, s) => t + s.durationMs, 0) / 1000),
    // Per-slice p99s cannot be merged exactly: the worst slice's is reported.
    latency: quoteLatencies.reduce((worst, l) => (l.p99 > worst.p99 ? l : worst)),
    errors: Object.assign({}, ...slices.map((s) => s.errors)) as Record<string, number>,
  };
  return {
    deposits: options.deposits,
    depositors: options.depositors,
    floor: summarize(floor.latencies),
    load: summarize(load.latencies),
    floorAfter: summarize(floorAfter.latencies),
    uncredited: { floor: floor.uncredited, load: load.uncredited, floorAfter: floorAfter.uncredited },
    quotes,
    targetP99Ms: TARGET_P99_MS,
    closes: {
      count: closes,
      floor: summarize(floorCloses.latencies),
      load: summarize(loadCloses.latencies),
      floorAfter: summarize(floorAfterCloses.latencies),
      stamped: { floor: summarize(floorCloses.stamped), load: summarize(loadCloses.stamped), floorAfter: summarize(floorAfterCloses.stamped) },
      notClosed: { floor: floorCloses.notClosed, load: loadCloses.notClosed, floorAfter: floorAfterCloses.notClosed },
      answeredAfterEnd: { floor: floorCloses.answeredAfterEnd, load: loadCloses.answeredAfterEnd, floorAfter: floorAfterCloses.answeredAfterEnd },
    },
  };
}

export function printDepositLatency(r: DepositLatencyResult, print: (line: string) => void): void {
  const line = (name: string, s: LatencySummary) => `  ${name.padEnd(30)} p50 ${round(s.p50, 0)} ms  p99 ${round(s.p99, 0)} ms  max ${round(s.max, 0)} ms  (n=${s.count})`;
  print(`deposit mined -> COMPLETED, ${r.deposits} deposits per run, ${r.depositors} at a time`);
  print(line('floor (no other load)', r.floor));
  print(line(`under ${r.quotes.offeredRate}/s re-quotes`, r.load));
  print(line('floor after (no other load)', r.floorAfter));
  print(`  re-quotes meanwhile: ${r.quotes.sent} sent, ${r.quotes.ok} ok, ${r.quotes.failed} failed, ${round(r.quotes.throughput, 0)}/s; worst 5 s slice p99 ${round(r.quotes.latency.p99, 1)} ms${Object.keys(r.quotes.errors).length ? `; errors ${JSON.stringify(r.quotes.errors)}` : ''}`);
  if (r.uncredited.floor + r.uncredited.load + r.uncredited.floorAfter > 0) print(`  NOT credited within ${CREDIT_TIMEOUT_MS / 1000} s: floor ${r.uncredited.floor}, load ${r.uncredited.load}, floor after ${r.uncredited.floorAfter}`);
  const met = r.load.count === r.deposits && r.load.p99 <= r.targetP99Ms;
  print(`  target p99 <= ${r.targetP99Ms} ms under load: ${met ? 'met' : 'NOT met'} (ratio to floor p99: ${round(r.load.p99 / r.floor.p99, 2)})`);
  print(`auction close lateness in the same runs: ${r.closes.count} quote-less autoAccept auctions per run, auctionEndsAt -> close seen committed`);
  print(line('floor (no other load)', r.closes.floor));
  print(line(`under ${r.quotes.offeredRate}/s re-quotes`, r.closes.load));
  print(line('floor after (no other load)', r.closes.floorAfter));
  print('  the same closes by their own timestamp (auctionEndsAt -> the close transaction began):');
  print(line('floor (no other load)', r.closes.stamped.floor));
  print(line(`under ${r.quotes.offeredRate}/s re-quotes`, r.closes.stamped.load));
  print(line('floor after (no other load)', r.closes.stamped.floorAfter));
  const { notClosed, answeredAfterEnd } = r.closes;
  if (notClosed.floor + notClosed.load + notClosed.floorAfter > 0) print(`  NOT closed within ${CLOSE_TIMEOUT_MS / 1000} s of their end: floor ${notClosed.floor}, load ${notClosed.load}, floor after ${notClosed.floorAfter}`);
  if (answeredAfterEnd.floor + answeredAfterEnd.load + answeredAfterEnd.floorAfter > 0) print(`  creates answered only after their auction's end (request queueing, not the closer): floor ${answeredAfterEnd.floor}, load ${answeredAfterEnd.load}, floor after ${answeredAfterEnd.floorAfter}`);
  const floors = [r.closes.floor.p99, r.closes.floorAfter.p99];
  print(`  p99: load ${round(r.closes.load.p99, 1)} ms against floors ${round(floors[0]!, 1)} and ${round(floors[1]!, 1)} ms (target: unchanged by the load);`);
  print(`    load / higher floor ${round(r.closes.load.p99 / Math.max(...floors), 2)}, load / lower floor ${round(r.closes.load.p99 / Math.min(...floors), 2)}, the floors between themselves ${round(Math.max(...floors) / Math.min(...floors), 2)}`);
}

/** `--service-env RFQ_NAME=value` settings as an environment. */
function serviceEnv(pairs: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1 || !pair.startsWith('RFQ_')) throw new Error(`--service-env wants RFQ_NAME=value, got ${JSON.stringify(pair)}`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

if (import.meta.main) {
  const { values: args } = parseArgs({
    options: {
      deposits: { type: 'string', default: '30' },
      depositors: { type: 'string', default: '3' },
      rate: { type: 'string', default: '1000' },
      makers: { type: 'string', default: '20' },
      rfqs: { type: 'string', default: '50' },
      closes: { type: 'string', default: String(DEFAULT_CLOSES) },
      'pool-size': { type: 'string', default: '10' },
      'service-env': { type: 'string', multiple: true, default: [] },
      db: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (args.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const log = (line: string) => process.stderr.write(`[deposit-latency] ${line}\n`);
  let own: OwnService | null = null;
  process.once('SIGINT', () => void Promise.allSettled([own?.stop(), stopAllServers()]).finally(() => process.exit(130)));
  let code = 0;
  try {
    log('starting the service (embedded mode) and waiting for /readyz');
    own = await startOwnService({ adminUrl: args.db ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', name: 'deposits', poolSize: Number(args['pool-size']), env: serviceEnv(args['service-env']) });
    const { service, db, dataDir } = own;
    try {
      const result = await runDepositLatency({
        service, db, dataDir, log,
        deposits: Number(args.deposits), depositors: Number(args.depositors), rate: Number(args.rate), makers: Number(args.makers), rfqs: Number(args.rfqs), closes: Number(args.closes),
      });
      printDepositLatency(result, (l) => process.stdout.write(`${l}\n`));
    } catch (error) {
      log(`service stderr: ${service.stderrTail.join('\n')}`);
      throw error;
    }
  } catch (error) {
    log(`failed: ${error instanceof Error ? error.stack : String(error)}`);
    code = 1;
  } finally {
    await own?.stop();
  }
  process.exit(code);
}
