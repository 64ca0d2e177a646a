/**
 * Perps and `/v0` against the simulator's realistic profile with a fixed injected latency
 * (default 200 ms on every `/info` and `/exchange` reply; the control surface is free), against these targets:
 *   idle      the venue weight the node spends over an idle minute (target <= 60): the first
 *             after a wake-up, and the one after it;
 *   accepts   perp accepts one after the other: accept -> SETTLED p50/p99 beside the floor of the
 *             same number of sequential venue round trips (the execution's venue calls up to its
 *             SETTLED commit, overlapping calls counted once, times the round trip measured in the
 *             same run); target p99 <= floor + 100 ms. Weight per accept (its quote and its
 *             execution, by priority), target <= 45;
 *   load      `rate` perp accepts and `v0Rate` `/v0` orders a minute for one minute: 429s read
 *             (target 0) and the weight the budget refused.
 * Weight is read from the node's `/metrics` (rfq_venue_weight_spent_total by priority). Figures
 * to report, never asserted.
 *
 *   node bench/venue-weight.ts [accepts=10] [perpPerMin=20] [v0PerMin=60] [latencyMs=200]
 */
import { performance } from 'node:perf_hooks';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startVenueSim } from '../sim/venue/index.ts';
import { resolveProfile } from '../sim/venue/profile.ts';
import { VenueSimControl } from '../sim/venue/control.ts';
import { perpMakerLegs, signMakerOrders, signTakerOrder, VenueNonces } from '../src/client/perp-order.ts';
import { perpParticipants } from './lib/perp-participants.ts';
import { startV0Stack } from '../test/helpers/v0.ts';
import { round, summarize } from './lib/stats.ts';

const accepts = Number(process.argv[2] ?? 10);
const perpPerMin = Number(process.argv[3] ?? 20);
const v0PerMin = Number(process.argv[4] ?? 60);
const latencyMs = Number(process.argv[5] ?? 200);
const BUILDER = '0x00000000000000000000000000000000000000be';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const sim = await startVenueSim({ port: 0, profile: resolveProfile('realistic', { latency: { minMs: latencyMs, maxMs: latencyMs, tailProbability: 0, tailMs: 0 } }) });
const control = new VenueSimControl(sim.url);
await control.fund({ user: BUILDER, account: 'perp', token: 'USDC', amount: '1000' });
// The books held still: the figures are the venue requests' weight and latency, not what other
// traders on a moving book do to a quote (test/api/v1/perp-moving-book.test.ts).
await control.book({ coin: 'ETH', moving: false });
await control.book({ coin: '@1', moving: false });
// The omnibus worker as deployed: a 250 ms pass, idle reads backing off to 30 s.
const stack = await startV0Stack('pglite', { logLevel: 'fatal', sim, venue: { url: sim.url, network: 'mainnet', builderAddress: BUILDER }, venueWeightPerMin: 900, pollIntervalMs: 250, ledgerIdleMaxMs: 30_000 });
const h = stack.harness;

type Weights = Record<string, number>;
async function weights(): Promise<Weights & { tooMany: number }> {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  const read = (name: string) => Object.fromEntries(text.split('\n').filter((l) => l.startsWith(`${name}{`)).map((l) => [/priority="(\w+)"/.exec(l)![1]!, Number(l.split(' ')[1])]));
  const tooMany = Number(text.split('\n').find((l) => l.startsWith('rfq_venue_too_many_requests_total '))?.split(' ')[1] ?? 0);
  return { ...Object.fromEntries(Object.entries(read('rfq_venue_weight_spent_total')).map(([k, v]) => [`spent.${k}`, v])), ...Object.fromEntries(Object.entries(read('rfq_venue_weight_refused_total')).map(([k, v]) => [`refused.${k}`, v])), tooMany };
}
const delta = (after: Weights, before: Weights) => Object.fromEntries(Object.keys(after).map((k) => [k, round((after[k] ?? 0) - (before[k] ?? 0), 1)]));
const spentOf = (d: Weights) => Object.entries(d).filter(([k]) => k.startsWith('spent.')).reduce((sum, [, v]) => sum + v, 0);

try {
  const { maker, taker, asset } = await perpParticipants(h, sim.url, BUILDER, 1000);
  const makerNonces = new VenueNonces();
  const takerNonces = new VenueNonces();
  const trader = privateKeyToAccount(generatePrivateKey());
  await stack.deposit(trader, 'USDC', '100000');
  const token = await stack.login(trader);
  await stack.waitFor(async () => (await stack.call('getBalances', {}, { token })).body.balances?.length === 1, 'deposit', 60_000);

  /** One perp RFQ quoted and accepted; resolves with accept -> SETTLED (ms) and the RFQ id. */
  async function oneAccept(): Promise<{ ms: number; rfqId: string; status: string; quoteWeight: number }> {
    const before = await weights();
    const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-PERP', side: 'BUY', baseQty: '0.1', quoteLimit: '400', windowMs: 300_000 });
    const order = { side: 'BUY' as const, asset, size: '0.1', price: 3500_100000n };
    const { makerPays, makerReceives } = perpMakerLegs(order);
    const { quoteId } = await maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-PERP', side: 'BUY', makerPays, makerReceives, ...(await signMakerOrders(maker.account, order, 'mainnet', makerNonces)) });
    const quote = await taker.client.getQuote(quoteId);
    // Signed with the asset read once: a taker's own venue reads come from its own address, not the service's.
    const signed = await signTakerOrder(taker.account, { side: 'BUY', quote, asset, builderAddress: BUILDER }, 'mainnet', takerNonces);
    const quoteWeight = spentOf(delta(await weights(), before));
    const t0 = performance.now();
    await taker.client.accept(rfqId, { quoteId: quote.quoteId, expectedVersion: quote.version, perpTakerOrder: signed });
    for (;;) {
      const rfq = await taker.client.getRfq(rfqId);
      if (rfq.status !== 'PENDING' && rfq.status !== 'QUOTED') return { ms: performance.now() - t0, rfqId, status: rfq.status, quoteWeight };
      await sleep(10);
    }
  }

  // The round trip: a cheap read (weight 2) through the same latency, sequentially.
  const roundTrips: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await fetch(`${sim.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'allMids' }) });
    roundTrips.push(performance.now() - t0);
  }
  const rt = summarize(roundTrips);

  // idle: two minutes with nothing to do; the first starts at a wake-up (the reads' back-off
  // ramps up from the poll interval), the second is the steady state.
  await stack.settle();
  const idleBefore = await weights();
  await sleep(60_000);
  const idleMiddle = await weights();
  await sleep(60_000);
  const rampIdle = delta(idleMiddle, idleBefore);
  const idle = delta(await weights(), idleMiddle);

  // accepts one after the other, after one that is not counted: after the idle minutes the quote
  // path's meta cache (RFQ_VENUE_META_CACHE_MS, 60 s) is cold, and its refresh is a cost per
  // minute of quoting (at most 20), not per accept; it is printed on its own.
  const warmBefore = await weights();
  const warm = await oneAccept();
  await sleep(3_000);
  const warmUp = delta(await weights(), warmBefore);
  const sequential: Array<{ ms: number; rfqId: string; status: string; quoteWeight: number }> = [];
  const acceptsBefore = await weights();
  for (let i = 0; i < accepts; i++) sequential.push(await oneAccept());
  await sleep(3_000); // the maker cancels after SETTLED
  const perAccept = delta(await weights(), acceptsBefore);
  const db = h.node.store.db;
  const executions = await db.selectFrom('perp_executions').innerJoin('rfqs', 'rfqs.id', 'perp_executions.rfq_id').select(['perp_executions.id', 'rfqs.settled_at']).where('perp_executions.rfq_id', 'in', sequential.map((s) => s.rfqId)).execute();
  const calls = await db.selectFrom('perp_execution_calls').select(['execution_id', 'kind', 'started_at', 'ended_at']).where('execution_id', 'in', executions.map((e) => e.id)).where('kind', '!=', 'decision').orderBy('started_at').execute();
  // Sequential venue round trips before SETTLED: overlapping calls count once.
  const trips = executions.map((e) => {
    let count = 0;
    let end = -Infinity;
    for (const c of calls.filter((c) => c.execution_id === e.id && c.ended_at !== null && e.settled_at !== null && c.started_at < e.settled_at)) {
      if (c.started_at >= end) count++;
      end = Math.max(end, c.ended_at!);
    }
    return count;
  });
  const tripsMedian = trips.sort((a, b) => a - b)[Math.floor(trips.length / 2)] ?? 0;
  const latency = summarize(sequential.filter((s) => s.status === 'SETTLED').map((s) => s.ms));
  const floor = tripsMedian * rt.p50;

  // load: perp accepts and /v0 orders side by side for a minute.
  const loadBefore = await weights();
  const started = Date.now();
  const work: Promise<unknown>[] = [];
  const v0Outcomes = new Map<number, number>();
  for (let i = 0; i < v0PerMin; i++) {
    work.push((async () => {
      await sleep(Math.max(0, started + (i * 60_000) / v0PerMin - Date.now()));
      const r = await stack.call('createOrder', { side: 'buy', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '0.3', price: '41' }, { token });
      v0Outcomes.set(r.status, (v0Outcomes.get(r.status) ?? 0) + 1);
    })());
  }
  const perpOutcomes = new Map<string, number>();
  for (let i = 0; i < perpPerMin; i++) {
    work.push((async () => {
      await sleep(Math.max(0, started + (i * 60_000) / perpPerMin - Date.now()));
      const r = await oneAccept().catch((error: unknown) => ({ status: `error ${(error as Error).message.slice(0, 60)}` }));
      perpOutcomes.set(r.status, (perpOutcomes.get(r.status) ?? 0) + 1);
    })());
  }
  await Promise.all(work);
  const load = delta(await weights(), loadBefore);
  const v0Terminal = await db.selectFrom('v0_orders').select(['status']).select((eb) => eb.fn.countAll<string>().as('n')).groupBy('status').execute();

  const ms = (v: number) => `${round(v, 1)} ms`;
  console.log(`venue weight and latency, realistic simulator, ${latencyMs} ms injected latency, RFQ_VENUE_WEIGHT_PER_MIN 900`);
  console.log(`  round trip (allMids, sequential, n=${rt.count}): p50 ${ms(rt.p50)} p99 ${ms(rt.p99)}`);
  console.log(`  idle minute after a wake-up: ${spentOf(rampIdle)} weight; the next idle minute: ${spentOf(idle)} weight (target <= 60) ${JSON.stringify(idle)}`);
  console.log(`  perp accept -> SETTLED, ${accepts} one after the other: p50 ${ms(latency.p50)} p99 ${ms(latency.p99)} (n=${latency.count}); outcomes ${JSON.stringify(sequential.map((s) => s.status))}`);
  console.log(`  floor: ${tripsMedian} sequential venue round trips (median over the executions) x ${ms(rt.p50)} = ${ms(floor)}; target p99 <= floor + 100 ms = ${ms(floor + 100)}: ${latency.p99 <= floor + 100 ? 'met' : 'NOT met'}`);
  console.log(`  weight per perp accept: ${round(spentOf(perAccept) / accepts, 1)} (target <= 45), its quote ${round(sequential.reduce((s, a) => s + a.quoteWeight, 0) / accepts, 1)}; by priority over the ${accepts}: ${JSON.stringify(perAccept)}`);
  console.log(`  the first accept after the idle minutes (not counted above; ${warm.status}): ${spentOf(warmUp)} weight, its quote ${warm.quoteWeight} (the quote path's meta cache refilled) ${JSON.stringify(warmUp)}`);
  console.log(`  load, ${perpPerMin} perp accepts and ${v0PerMin} /v0 orders in one minute: 429s ${load.tooMany} (target 0); ${JSON.stringify(load)}`);
  console.log(`    perp outcomes ${JSON.stringify(Object.fromEntries(perpOutcomes))}; /v0 createOrder HTTP ${JSON.stringify(Object.fromEntries(v0Outcomes))}; /v0 orders by status ${JSON.stringify(v0Terminal)}`);
} finally {
  await stack.close();
  await sim.stop();
}
