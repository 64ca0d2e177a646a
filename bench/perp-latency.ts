/**
 * Perp accept -> SETTLED latency on the venue simulator: RFQs with one
 * maker quote each (an ALO inside the book, signed with the SDK) are prepared first, then
 * accepted at a fixed rate (default 10/s) with a signed IOC each. From the stored execution
 * (`perp_executions` and its `perp_execution_calls`), each accept is split into
 *   accept      accept sent -> its 202 received (the accept's transaction, committed)
 *   checks      202 -> maker order sent: the executor's wake-up and lease, the checks, their
 *               commit; within them the venue `meta` read (started when the accept arrived, so
 *               beside the accept's transaction, on the node that took it: check-reads.ts), from
 *               its reply to the checks' commit beginning, and that commit to the maker order sent
 *   maker order maker order sent -> its reply
 *   taker order taker order sent -> its reply
 *   resolution  taker reply -> RFQ SETTLED committed
 * with the gaps between them (maker reply -> taker order sent: the commit of "taker order
 * sending"). The floor, measured in the same run against the same simulator: one signed order
 * round trip through the SDK's ExchangeClient (an IOC that fills against the seeded book).
 * Target: p99 of accept -> SETTLED <= 2 x the floor's p99 + 20 ms (two orders are sent in
 * sequence). A figure to report, never asserted.
 *
 * The simulator runs in its own process (`sim/venue/main.ts`), as the venue is remote in
 * production: in-process, its signature recoveries shared the service's event loop and every
 * venue call of the service queued behind them. `BENCH_SIM_INPROCESS=1` puts it back in-process.
 * The accept window's CPU (this process: the service and its store; the simulator's process) and
 * the service's event-loop delay are printed, and `BENCH_CPU_PROF=file` writes a V8 profile of
 * the window only (`node bench/profile-summary.ts file`).
 *
 *   node bench/perp-latency.ts [accepts=200] [rate=10]              # PGlite
 *   TEST_DATABASE_URL=postgres://... node bench/perp-latency.ts 60 10 postgres
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ExchangeClient, HttpTransport } from '@nktkas/hyperliquid';
import { startVenueSim } from '../sim/venue/index.ts';
import { READY_PREFIX } from '../sim/venue/ready.ts';
import { PerpTaker } from '../src/client/perp-taker.ts';
import { perpMakerLegs, signMakerOrders, VenueNonces } from '../src/client/perp-order.ts';
import { perpParticipants } from './lib/perp-participants.ts';
import type { Quote } from '../src/client/types.ts';
import { startHarness } from '../test/helpers/harness.ts';
import { PGlitePool } from '../src/store/pglite-pool.ts';
import pg from 'pg';
import { round, summarize, type LatencySummary } from './lib/stats.ts';
import { loadAverage, processCpuMs, repoRoot, spawnServer } from './lib/processes.ts';

// 200 by default: with 60 the p99 was the slowest accept of the run (often the first, cold).
const accepts = Number(process.argv[2] ?? 200);
const rate = Number(process.argv[3] ?? 10);
const backend = process.argv[4] === 'postgres' ? 'postgres' : 'pglite';
const BUILDER = '0x00000000000000000000000000000000000000be';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// BENCH_SQL_STATS=1: every statement's time (sent -> answered) by its first words, during the window.
const sqlStats = new Map<string, { count: number; ms: number }>();
let countSql = false;
function timed<T>(text: string, run: () => Promise<T>): Promise<T> {
  if (!countSql) return run();
  const key = text.replace(/\s+/g, ' ').trim().slice(0, 70);
  const t0 = performance.now();
  return run().finally(() => {
    const entry = sqlStats.get(key) ?? { count: 0, ms: 0 };
    entry.count++;
    entry.ms += performance.now() - t0;
    sqlStats.set(key, entry);
  });
}
if (process.env.BENCH_SQL_STATS === '1') {
  const connect = PGlitePool.prototype.connect;
  PGlitePool.prototype.connect = async function (this: PGlitePool) {
    const client = await connect.call(this);
    const query = client.query.bind(client);
    client.query = (text, parameters) => timed(text, () => query(text, parameters));
    return client;
  };
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  (pg.Client.prototype as unknown as { query: unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
    if (typeof text !== 'string' || typeof args[args.length - 1] === 'function') return query.apply(this, args);
    return timed(text, () => query.apply(this, args) as Promise<unknown>);
  };
}

// Interrupted: exit, and the simulator's process goes with this one (bench/lib/processes.ts).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const sim = process.env.BENCH_SIM_INPROCESS === '1'
  ? { ...(await startVenueSim({ port: 0 })), pid: null as number | null }
  : await spawnServer({ name: 'venue-sim', args: ['sim/venue/main.ts'], env: process.env, cwd: repoRoot, ready: new RegExp(`${escape(READY_PREFIX)}(http://\\S+)`) }).then((c) => ({ url: c.url, pid: c.pid as number | null, stop: () => c.stop() }));
// BENCH_PERP_CONCURRENCY: the executor's slots (the service's default otherwise).
const concurrency = process.env.BENCH_PERP_CONCURRENCY ? Number(process.env.BENCH_PERP_CONCURRENCY) : undefined;
const h = await startHarness(backend, { logLevel: 'fatal', venue: { url: sim.url, network: 'mainnet', builderAddress: BUILDER }, ...(concurrency ? { perpExecution: { concurrency } } : {}) });

const line = (name: string, s: LatencySummary) => `  ${name.padEnd(26)} p50 ${round(s.p50, 1)} ms  p99 ${round(s.p99, 1)} ms  max ${round(s.max, 1)} ms  (n=${s.count})`;

try {
  // All RFQs are open at once before the accepts start.
  const { venueAccount, maker, taker, perp, asset } = await perpParticipants(h, sim.url, BUILDER, Math.max(20, accepts));
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
  // 100 orders: the floor's p99 is then not just its slowest round trip either.
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now();
    await exchange.order({ orders: [{ a: asset.index, b: i % 2 === 0, p: i % 2 === 0 ? '3510' : '3490', s: '0.01', r: false, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' });
    floor.push(performance.now() - t0);
  }

  // Accepts at `rate` per second, each measured from its own send.
  const profile = process.env.BENCH_CPU_PROF ? new Session() : null;
  if (profile) {
    profile.connect();
    await profile.post('Profiler.enable');
    await profile.post('Profiler.start');
  }
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const cpuBefore = process.cpuUsage();
  const simCpuBefore = sim.pid === null ? null : processCpuMs(sim.pid);
  const windowStart = performance.now();
  countSql = true;
  const sentAt = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  const startedAt = Date.now();
  await Promise.all(prepared.map(async (p, i) => {
    await sleep(Math.max(0, startedAt + (i * 1000) / rate - Date.now()));
    sentAt.set(p.rfqId, Date.now());
    await taker.client.accept(p.rfqId, { quoteId: p.quote.quoteId, expectedVersion: p.quote.version, perpTakerOrder: p.order });
    answeredAt.set(p.rfqId, Date.now());
  }));
  const db = h.node.store.db;
  const ids = prepared.map((p) => p.rfqId);
  // Until every execution has ended (clean-up included), so the window's CPU covers all its work.
  for (const until = Date.now() + 120_000; Date.now() < until;) {
    const open = await db.selectFrom('perp_executions').select('id').where('rfq_id', 'in', ids).where('phase', 'not in', ['refused', 'ignored', 'done']).execute();
    if (open.length === 0) break;
    // Seldom: this poll shares the service's store (PGlite: its thread too).
    await sleep(250);
  }
  const windowMs = performance.now() - windowStart;
  countSql = false;
  const cpu = process.cpuUsage(cpuBefore);
  const simCpu = sim.pid === null || simCpuBefore === null ? null : (processCpuMs(sim.pid) ?? simCpuBefore) - simCpuBefore;
  loopDelay.disable();
  if (profile) {
    const { profile: taken } = await profile.post('Profiler.stop');
    writeFileSync(process.env.BENCH_CPU_PROF!, JSON.stringify(taken));
    profile.disconnect();
  }
  const rfqs = await db.selectFrom('rfqs').select(['id', 'status', 'settled_at', 'failure_code']).where('id', 'in', ids).execute();
  const outcomes = new Map<string, number>();
  for (const rfq of rfqs) {
    const outcome = rfq.failure_code ? `${rfq.status} ${rfq.failure_code}` : rfq.status;
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }
  const executions = await db.selectFrom('perp_executions').select(['id', 'rfq_id', 'created_at']).where('rfq_id', 'in', ids).execute();
  const calls = await db.selectFrom('perp_execution_calls').select(['execution_id', 'kind', 'started_at', 'ended_at']).where('execution_id', 'in', executions.map((e) => e.id)).orderBy('id').execute();
  const split = { total: [] as number[], accept: [] as number[], queued: [] as number[], checks: [] as number[], reads: [] as number[], decided: [] as number[], committed: [] as number[], maker: [] as number[], between: [] as number[], taker: [] as number[], resolution: [] as number[] };
  let settled = 0;
  const slowest: Array<Record<string, number>> = [];
  for (const rfq of rfqs) {
    if (rfq.status !== 'SETTLED' || rfq.settled_at === null) continue;
    settled++;
    const execution = executions.find((e) => e.rfq_id === rfq.id)!;
    const mine = calls.filter((c) => c.execution_id === execution.id);
    const makerOrder = mine.find((c) => c.kind === 'makerOrder' && c.ended_at !== null);
    const takerOrder = mine.find((c) => c.kind === 'takerOrder' && c.ended_at !== null);
    const meta = mine.find((c) => c.kind === 'meta');
    // The checks' own decision record: stamped when their commit began.
    const decision = mine.find((c) => c.kind === 'decision');
    if (!makerOrder || !takerOrder || !meta || !decision || meta.ended_at === null) continue;
    const t0 = sentAt.get(rfq.id)!;
    const t202 = answeredAt.get(rfq.id)!;
    slowest.push({ index: ids.indexOf(rfq.id), total: rfq.settled_at - t0, accept: t202 - t0, metaStart: meta.started_at - t0, commitBegan: decision.started_at - t0, makerSent: makerOrder.started_at - t0, takerReply: takerOrder.ended_at! - t0 });
    split.total.push(rfq.settled_at - t0);
    split.accept.push(t202 - t0);
    split.queued.push(meta.started_at - t0);
    split.checks.push(makerOrder.started_at - t202);
    split.reads.push(meta.ended_at - meta.started_at);
    split.decided.push(decision.started_at - meta.ended_at);
    split.committed.push(makerOrder.started_at - decision.started_at);
    split.maker.push(makerOrder.ended_at! - makerOrder.started_at);
    split.between.push(takerOrder.started_at - makerOrder.ended_at!);
    split.taker.push(takerOrder.ended_at! - takerOrder.started_at);
    split.resolution.push(rfq.settled_at - takerOrder.ended_at!);
  }
  const total = summarize(split.total);
  const floorSummary = summarize(floor);
  console.log(`perp accept -> SETTLED on the venue simulator [${backend}], ${accepts} accepts at ${rate}/s: ${settled} SETTLED; outcomes ${JSON.stringify(Object.fromEntries(outcomes))}`);
  console.log(line('accept -> SETTLED', total));
  console.log(line('  accept (-> 202)', summarize(split.accept)));
  console.log(line('  checks (202 -> maker sent)', summarize(split.checks)));
  console.log(line('    meta read sent (from accept)', summarize(split.queued)));
  console.log(line('    venue meta read', summarize(split.reads)));
  console.log(line('    meta -> commit begins', summarize(split.decided)));
  console.log(line('    commit -> maker sent', summarize(split.committed)));
  console.log(line('  maker order', summarize(split.maker)));
  console.log(line('  maker reply -> taker sent', summarize(split.between)));
  console.log(line('  taker order', summarize(split.taker)));
  console.log(line('  resolution (-> SETTLED)', summarize(split.resolution)));
  console.log(line('floor: one SDK order', floorSummary));
  const target = 2 * floorSummary.p99 + 20;
  console.log(`  slowest (ms from its send, accept index of ${accepts}): ${slowest.sort((a, b) => b['total']! - a['total']!).slice(0, 3).map((s) => JSON.stringify(s)).join(' ')}`);
  const perAccept = (ms: number) => round(ms / accepts, 1);
  console.log(`  window ${round(windowMs / 1000, 1)} s: CPU per accept ${perAccept((cpu.user + cpu.system) / 1000)} ms in the service's process (bench client and store included)${simCpu === null ? ' (simulator in-process)' : `, ${perAccept(simCpu)} ms in the simulator's`}; event-loop delay p50 ${round(loopDelay.percentile(50) / 1e6, 1)} ms p99 ${round(loopDelay.percentile(99) / 1e6, 1)} ms; load average ${loadAverage()}`);
  if (sqlStats.size > 0) {
    const total = [...sqlStats.values()].reduce((a, b) => ({ count: a.count + b.count, ms: a.ms + b.ms }), { count: 0, ms: 0 });
    console.log(`  statements per accept ${round(total.count / accepts, 1)}, ${round(total.ms / accepts, 1)} ms each accept (sent -> answered, summed; the bench's own polls included):`);
    for (const [text, entry] of [...sqlStats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) console.log(`    ${String(round(entry.count / accepts, 2)).padStart(5)} x ${String(round(entry.ms / entry.count, 2)).padStart(6)} ms  ${text}`);
  }
  console.log(`  target p99 <= 2 x floor p99 + 20 ms = ${round(target, 1)} ms: ${total.p99 <= target ? 'met' : 'NOT met'} (clock: ms, service and client on one machine)`);
} finally {
  await h.close();
  await sim.stop();
}
