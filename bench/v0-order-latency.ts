/**
 * `/v0` createOrder -> terminal status at a fixed rate against the venue simulator, beside the
 * simulator's own order round trip (a signed IOC order posted straight to it) in the same run.
 * Terminal status is observed by one watcher reading every outstanding order's status each 5 ms,
 * so figures include up to that much. A figure to report, never asserted (target: p99 <= 2 x floor p99 + 20 ms).
 *
 *   node bench/v0-order-latency.ts [orders=200] [perSec=20]            # PGlite
 *   TEST_DATABASE_URL=postgres://... node bench/v0-order-latency.ts 200 20 postgres
 */
import { performance } from 'node:perf_hooks';
import { ExchangeClient, HttpTransport } from '@nktkas/hyperliquid';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startVenueSimProcess } from '../sim/venue/launch.ts';
import { startV0Stack } from '../test/helpers/v0.ts';
import { roundSummary, summarize } from './lib/stats.ts';

const orders = Number(process.argv[2] ?? 200);
const perSec = Number(process.argv[3] ?? 20);
const backend = process.argv[4] === 'postgres' ? 'postgres' : 'pglite';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// The simulator runs in its own process, as a venue is remote: its CPU is not the service's.
const sim = await startVenueSimProcess({ dataDir: null });
const stack = await startV0Stack(backend, { logLevel: 'fatal', sim });
try {
  const trader = privateKeyToAccount(generatePrivateKey());
  await stack.deposit(trader, 'USDC', String(orders * 50));
  const token = await stack.login(trader);
  await stack.waitFor(async () => (await stack.call('getBalances', {}, { token })).status === 200, 'deposit', 30_000);

  // Floor: the simulator's own round trip for a signed IOC order of the same size.
  const direct = privateKeyToAccount(generatePrivateKey());
  await stack.simControl('/_sim/fund', { user: direct.address, account: 'spot', token: 'USDC', amount: String(orders * 50) });
  const exchange = new ExchangeClient({ transport: new HttpTransport({ apiUrl: stack.sim.url }), wallet: direct });
  const floor: number[] = [];
  for (let i = 0; i < Math.min(orders, 100); i++) {
    const start = performance.now();
    await exchange.order({ orders: [{ a: 10_001, b: true, p: '41', s: '0.3', r: false, t: { limit: { tif: 'Ioc' } } }], grouping: 'na' });
    floor.push(performance.now() - start);
    await sleep(1000 / perSec);
  }

  // One watcher for every outstanding order (one query per 5 ms tick), so observing does not
  // load the store with a poll per order and slow down what it measures.
  const latencies: number[] = [];
  const outstanding = new Map<string, { start: number; done: () => void }>();
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      if (outstanding.size > 0) {
        const finished = await stack.harness.node.store.db.selectFrom('v0_orders').select('cloid').where('cloid', 'in', [...outstanding.keys()]).where('status', 'not in', ['pending', 'open']).execute();
        const seenAt = performance.now();
        for (const { cloid } of finished) {
          const entry = outstanding.get(cloid);
          if (!entry) continue;
          outstanding.delete(cloid);
          latencies.push(seenAt - entry.start);
          entry.done();
        }
      }
      await sleep(5);
    }
  })();
  const running: Promise<void>[] = [];
  for (let i = 0; i < orders; i++) {
    running.push((async () => {
      const start = performance.now();
      const created = await stack.call('createOrder', { side: 'buy', orderType: 'limit', baseToken: 'HYPE', quoteToken: 'USDC', amount: '0.3', price: '41' }, { token });
      if (created.status !== 200) throw new Error(JSON.stringify(created.body));
      await new Promise<void>((done) => outstanding.set(created.body.orderId as string, { start, done }));
    })());
    await sleep(1000 / perSec);
  }
  await Promise.all(running);
  watching = false;
  await watcher;
  console.log(JSON.stringify({ backend, orders, perSec, createOrderToTerminalMs: roundSummary(summarize(latencies.sort((a, b) => a - b))), simulatorOrderRoundTripMs: roundSummary(summarize(floor.sort((a, b) => a - b))) }, null, 2));
} finally {
  await stack.close();
  await sim.stop();
}
