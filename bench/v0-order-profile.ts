/**
 * Profiles single `/v0` orders one at a time (no queueing): per order, the SQL statements the
 * service ran (BEGIN/COMMIT included, each a round trip), the venue requests it made, and the time
 * from createOrder to terminal status split into HTTP request, venue time and the rest. PostgreSQL
 * only (statements are counted at the `pg` client, so the node's other background work, e.g. the
 * outbox dispatcher's polls, is counted too; the last order's statements are printed to tell them
 * apart). A figure to read, never asserted.
 *
 *   TEST_DATABASE_URL=postgres://... node bench/v0-order-profile.ts [orders=20]
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startVenueSimProcess } from '../sim/venue/launch.ts';
import { VenueHttp } from '../src/venue/omnibus/venue-http.ts';
import { startV0Stack } from '../test/helpers/v0.ts';
import { roundSummary, summarize } from './lib/stats.ts';

const orders = Number(process.argv[2] ?? 20);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let recording = false;
const POLL = 'select "status" from "v0_orders" where "cloid"';
const statements: string[] = [];
let venueMs = 0;
const venueCalls: string[] = [];
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (recording) {
    const first = args[0];
    const text = typeof first === 'string' ? first : (first as { text?: string })?.text ?? '?';
    // The profile's own status poll is not the service's work.
    if (!text.startsWith(POLL)) statements.push(text.replace(/\s+/g, ' ').slice(0, 110));
  }
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;
for (const method of ['info', 'exchange'] as const) {
  const original = VenueHttp.prototype[method] as (...args: unknown[]) => Promise<unknown>;
  (VenueHttp.prototype as unknown as Record<string, unknown>)[method] = async function (this: VenueHttp, ...args: unknown[]) {
    const start = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      if (recording) {
        venueMs += performance.now() - start;
        venueCalls.push(method === 'info' ? `info ${String((args[0] as { type: string }).type)}` : 'exchange');
      }
    }
  };
}

const sim = await startVenueSimProcess({ dataDir: null });
// A long idle pause: the worker's own passes stay out of what one order costs.
const stack = await startV0Stack('postgres', { logLevel: process.env.LOG ?? 'fatal', sim, pollIntervalMs: 60_000 });
try {
  const trader = privateKeyToAccount(generatePrivateKey());
  await stack.deposit(trader, 'USDC', String(orders * 50));
  const token = await stack.login(trader);
  await stack.waitFor(async () => {
    await stack.settle();
    return (await stack.call('getBalances', {}, { token })).status === 200;
  }, 'deposit', 30_000);
  const totals: number[] = [];
  const requests: number[] = [];
  const counts: number[] = [];
  let example: string[] = [];
  let exampleVenue: string[] = [];
  const venueTimes: number[] = [];
  for (let i = 0; i < orders; i++) {
    statements.length = 0;
    venueCalls.length = 0;
    venueMs = 0;
    recording = true;
    const start = performance.now();
    const created = await stack.call('createOrder', { side: 'buy', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '0.3', price: '41' }, { token });
    requests.push(performance.now() - start);
    if (created.status !== 200) throw new Error(JSON.stringify(created.body));
    const id = created.body.orderId as string;
    for (;;) {
      const row = await stack.harness.node.store.db.selectFrom('v0_orders').select('status').where('cloid', '=', id).executeTakeFirst();
      if (row && row.status !== 'pending' && row.status !== 'open') break;
      await sleep(1);
    }
    totals.push(performance.now() - start);
    recording = false;
    await sleep(300);
    counts.push(statements.length);
    venueTimes.push(venueMs);
    example = [...statements];
    exampleVenue = [...venueCalls];
  }
  console.log(example.map((s, i) => `${String(i + 1).padStart(3)} ${s}`).join('\n'));
  console.log('venue calls:', exampleVenue.join(', '));
  console.log(JSON.stringify({ orders, statementsPerOrder: roundSummary(summarize(counts)), createOrderRequestMs: roundSummary(summarize(requests)), venueMsPerOrder: roundSummary(summarize(venueTimes)), createOrderToTerminalMs: roundSummary(summarize(totals)) }, null, 2));
} finally {
  await stack.close();
  await sim.stop();
}
