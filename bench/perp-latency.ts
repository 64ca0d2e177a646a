/**
 * Perp accept -> SETTLED latency on the venue simulator (issue 11, "Performance"): RFQs with one
 * maker quote each (an ALO inside the book, signed with the SDK) are prepared first, then
 * accepted at a fixed rate (default 10/s) with a signed IOC each. From the stored execution
 * (`perp_executions` and its `perp_execution_calls`), each accept is split into
 *   accept      accept sent -> execution recorded (the accept's transaction)
 *   queued      recorded -> the executor starts its checks (waiting for a free executor)
 *   checks      checks start -> maker order sent (meta, extraAgents, builder fee, selection)
 *   maker order maker order sent -> its reply
 *   taker order taker order sent -> its reply
 *   resolution  taker reply -> RFQ SETTLED committed
 * The floor, measured in the same run against the same simulator: one signed order round trip
 * through the SDK's ExchangeClient (an IOC that fills against the seeded book). Target: p99 of
 * accept -> SETTLED <= 2 x the floor's p99 + 20 ms (two orders are sent in sequence). A figure to
 * report, never asserted.
 *
 *   node bench/perp-latency.ts [accepts=60] [rate=10]               # PGlite
 *   TEST_DATABASE_URL=postgres://... node bench/perp-latency.ts 60 10 postgres
 */
import { performance } from 'node:perf_hooks';
import { ExchangeClient, HttpTransport } from '@nktkas/hyperliquid';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startVenueSim } from '../sim/venue/index.ts';
import { VenueSimControl } from '../sim/venue/control.ts';
import { PerpTaker } from '../src/client/perp-taker.ts';
import { perpMakerLegs, PerpVenueClient, signMakerOrders, VenueNonces } from '../src/client/perp-order.ts';
import { RfqClient } from '../src/client/rfq-client.ts';
import type { Quote } from '../src/client/types.ts';
import { startHarness } from '../test/helpers/harness.ts';
import { round, summarize, type LatencySummary } from './lib/stats.ts';

const accepts = Number(process.argv[2] ?? 60);
const rate = Number(process.argv[3] ?? 10);
const backend = process.argv[4] === 'postgres' ? 'postgres' : 'pglite';
const BUILDER = '0x00000000000000000000000000000000000000be';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const sim = await startVenueSim({ port: 0 });
const control = new VenueSimControl(sim.url);
const h = await startHarness(backend, { logLevel: 'fatal', venue: { url: sim.url, network: 'mainnet', builderAddress: BUILDER } });

async function venueAccount(usdc: string) {
  const account = privateKeyToAccount(generatePrivateKey());
  await control.fund({ user: account.address, account: 'perp', token: 'USDC', amount: usdc });
  const client = new RfqClient(h.url);
  return { account, client };
}

const line = (name: string, s: LatencySummary) => `  ${name.padEnd(26)} p50 ${round(s.p50, 1)} ms  p99 ${round(s.p99, 1)} ms  max ${round(s.max, 1)} ms  (n=${s.count})`;

try {
  // All RFQs are open at once before the accepts start, and their auctions outlast the preparation.
  await h.admin.putSettings({ maxOpenRfqsPerAccount: Math.max(20, accepts), maxWindowMs: 300_000 });
  await h.admin.putInstrument('ETH-USDC-PERP', { base: 'ETH', quote: 'USDC', type: 'PERP', takerFeeTenthBp: 20, minQuoteNotional: '10' });
  const maker = await venueAccount('10000000');
  await h.admin.putMaker(maker.account.address, { active: true, pairs: ['ETH-USDC'], settlementModes: ['perp'] });
  await maker.client.signIn(maker.account);
  const taker = await venueAccount('10000000');
  await taker.client.signIn(taker.account);
  const perp = await PerpTaker.connect(taker.client, taker.account, { url: sim.url, network: 'mainnet', builderAddress: BUILDER });
  await perp.ensureBuilderFee(20);
  const venue = new PerpVenueClient(sim.url, 'mainnet');
  const asset = await venue.asset('ETH');
  const makerNonces = new VenueNonces();

  // Prepared before the clock starts: RFQs, quotes and the taker's signed orders.
  const prepared: Array<{ rfqId: string; quote: Quote; order: Awaited<ReturnType<PerpTaker['order']>> }> = [];
  for (let i = 0; i < accepts; i++) {
    const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-PERP', side: 'BUY', baseQty: '0.1', quoteLimit: '400', windowMs: 300_000 });
    // 3500.1: inside the simulator's book (3499.65 / 3500.35), so the taker's IOC meets this order.
    const order = { side: 'BUY' as const, asset, size: '0.1', price: 3500_100000n };
    const { makerPays, makerReceives } = perpMakerLegs(order);
    const { quoteId } = await maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-PERP', side: 'BUY', makerPays, makerReceives, ...(await signMakerOrders(maker.account, order, 'mainnet', makerNonces)) });
    const quote = await taker.client.getQuote(quoteId);
    prepared.push({ rfqId, quote, order: await perp.order({ instrumentId: 'ETH-USDC-PERP', side: 'BUY' }, quote) });
  }

  // The floor: the simulator's own order round trip through the SDK (same process, same run).
  const floorTaker = await venueAccount('10000000');
  const exchange = new ExchangeClient({ transport: new HttpTransport({ apiUrl: sim.url, timeout: 10_000 }), wallet: floorTaker.account });
  const floor: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    await exchange.order({ orders: [{ a: asset.index, b: i % 2 === 0, p: i % 2 === 0 ? '3510' : '3490', s: '0.01', r: false, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' });
    floor.push(performance.now() - t0);
  }

  // Accepts at `rate` per second, each measured from its own send.
  const sentAt = new Map<string, number>();
  const startedAt = Date.now();
  await Promise.all(prepared.map(async (p, i) => {
    await sleep(Math.max(0, startedAt + (i * 1000) / rate - Date.now()));
    sentAt.set(p.rfqId, Date.now());
    await taker.client.accept(p.rfqId, { quoteId: p.quote.quoteId, expectedVersion: p.quote.version, perpTakerOrder: p.order });
  }));
  const db = h.node.store.db;
  const ids = prepared.map((p) => p.rfqId);
  for (const until = Date.now() + 120_000; Date.now() < until;) {
    const open = await db.selectFrom('rfqs').select('id').where('id', 'in', ids).where('status', 'in', ['PENDING', 'QUOTED']).execute();
    if (open.length === 0) break;
    await sleep(100);
  }
  const rfqs = await db.selectFrom('rfqs').select(['id', 'status', 'settled_at', 'failure_code']).where('id', 'in', ids).execute();
  const outcomes = new Map<string, number>();
  for (const rfq of rfqs) {
    const outcome = rfq.failure_code ? `${rfq.status} ${rfq.failure_code}` : rfq.status;
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }
  const executions = await db.selectFrom('perp_executions').select(['id', 'rfq_id', 'created_at']).where('rfq_id', 'in', ids).execute();
  const calls = await db.selectFrom('perp_execution_calls').select(['execution_id', 'kind', 'started_at', 'ended_at']).where('execution_id', 'in', executions.map((e) => e.id)).execute();
  const split = { total: [] as number[], accept: [] as number[], queued: [] as number[], checks: [] as number[], maker: [] as number[], taker: [] as number[], resolution: [] as number[] };
  let settled = 0;
  for (const rfq of rfqs) {
    if (rfq.status !== 'SETTLED' || rfq.settled_at === null) continue;
    settled++;
    const execution = executions.find((e) => e.rfq_id === rfq.id)!;
    const mine = calls.filter((c) => c.execution_id === execution.id);
    const makerOrder = mine.find((c) => c.kind === 'makerOrder' && c.ended_at !== null);
    const takerOrder = mine.find((c) => c.kind === 'takerOrder' && c.ended_at !== null);
    const meta = mine.find((c) => c.kind === 'meta');
    if (!makerOrder || !takerOrder || !meta) continue;
    const t0 = sentAt.get(rfq.id)!;
    split.total.push(rfq.settled_at - t0);
    split.accept.push(execution.created_at - t0);
    split.queued.push(meta.started_at - execution.created_at);
    split.checks.push(makerOrder.started_at - meta.started_at);
    split.maker.push(makerOrder.ended_at! - makerOrder.started_at);
    split.taker.push(takerOrder.ended_at! - takerOrder.started_at);
    split.resolution.push(rfq.settled_at - takerOrder.ended_at!);
  }
  const total = summarize(split.total);
  const floorSummary = summarize(floor);
  console.log(`perp accept -> SETTLED on the venue simulator [${backend}], ${accepts} accepts at ${rate}/s: ${settled} SETTLED; outcomes ${JSON.stringify(Object.fromEntries(outcomes))}`);
  console.log(line('accept -> SETTLED', total));
  console.log(line('  accept (-> recorded)', summarize(split.accept)));
  console.log(line('  queued (-> checks start)', summarize(split.queued)));
  console.log(line('  checks (-> maker sent)', summarize(split.checks)));
  console.log(line('  maker order', summarize(split.maker)));
  console.log(line('  taker order', summarize(split.taker)));
  console.log(line('  resolution (-> SETTLED)', summarize(split.resolution)));
  console.log(line('floor: one SDK order', floorSummary));
  const target = 2 * floorSummary.p99 + 20;
  console.log(`  target p99 <= 2 x floor p99 + 20 ms = ${round(target, 1)} ms: ${total.p99 <= target ? 'met' : 'NOT met'} (clock: ms, service and client on one machine)`);
} finally {
  await h.close();
  await sim.stop();
}
