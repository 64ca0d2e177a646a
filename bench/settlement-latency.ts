/**
 * Time from a taker's accept to SETTLED for permit2 settlement on the devnet (anvil, 1 s blocks,
 * mixed mining, 1 confirmation, follower polling every 200 ms), with the maker relaying as soon
 * as it sees its permit. Sequential trades; prints per-phase medians and the spread. A figure to
 * report, never asserted.
 *
 *   node bench/settlement-latency.ts [trades=10]            # PGlite
 *   TEST_DATABASE_URL=postgres://... node bench/settlement-latency.ts 10 postgres
 */
import { performance } from 'node:perf_hooks';
import { startTestChain } from '../test/helpers/chain.ts';
import { startHarness } from '../test/helpers/harness.ts';
import { chainMaker, fundedTaker, relay } from '../test/helpers/settlement.ts';

const trades = Number(process.argv[2] ?? 10);
const backend = process.argv[3] === 'postgres' ? 'postgres' : 'pglite';
const chain = await startTestChain();
const h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, logLevel: 'fatal' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
try {
  const maker = await chainMaker(h, chain);
  const taker = await fundedTaker(h, chain, { USDC: String(5000 * trades) });
  const rows: Array<{ permit: number; mined: number; settled: number }> = [];
  for (let i = 0; i < trades; i++) {
    const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 10_000 });
    const { quoteId } = await maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4300' } });
    const t0 = performance.now();
    await taker.client.accept(rfqId, { quoteId });
    let q = (await maker.client.makerQuotes({ status: ['SELECTED'] })).items.find((x) => x.quoteId === quoteId);
    while (!q?.permitSignature) {
      await sleep(5);
      q = (await maker.client.makerQuotes({ status: ['SELECTED'] })).items.find((x) => x.quoteId === quoteId);
    }
    const permit = performance.now() - t0;
    await relay(chain, maker, q);
    const mined = performance.now() - t0;
    while ((await taker.client.getRfq(rfqId)).status !== 'SETTLED') await sleep(10);
    rows.push({ permit, mined, settled: performance.now() - t0 });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const fmt = (x: number) => `${x.toFixed(0)} ms`;
  const settled = rows.map((r) => r.settled);
  console.log(`permit2 accept -> SETTLED on the devnet [${backend}], ${trades} sequential trades`);
  console.log(`  accept -> permit visible to maker: median ${fmt(median(rows.map((r) => r.permit)))}`);
  console.log(`  accept -> relay mined:             median ${fmt(median(rows.map((r) => r.mined)))}`);
  console.log(`  accept -> SETTLED (taker's view):  median ${fmt(median(settled))}, min ${fmt(Math.min(...settled))}, max ${fmt(Math.max(...settled))}`);
} finally {
  await h.close();
  await chain.stop();
}
