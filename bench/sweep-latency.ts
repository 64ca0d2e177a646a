/**
 * A 5-leg spot sweep against a single-quote RFQ of the same size, in the same run, interleaved
 * (one of each per round, so the machine's noise falls on both): the accept call's latency
 * (`POST .../accept` until its answer) and accept -> SETTLED with permit2 settlement on the devnet
 * (anvil, 1 s blocks), every maker relaying its leg as soon as it sees its permit, the five in
 * parallel. A figure to report, never asserted.
 *
 *   node bench/sweep-latency.ts [rounds=20]            # PGlite
 *   TEST_DATABASE_URL=postgres://... node bench/sweep-latency.ts 20 postgres
 */
import { performance } from 'node:perf_hooks';
import type { MakerQuote } from '../src/client/types.ts';
import { startTestChain } from '../test/helpers/chain.ts';
import { startHarness } from '../test/helpers/harness.ts';
import { chainMaker, fundedTaker, relay, type ChainMaker } from '../test/helpers/settlement.ts';
import { summarize, type LatencySummary } from './lib/stats.ts';
import { loadAverage } from './lib/processes.ts';

const rounds = Number(process.argv[2] ?? 20);
const backend = process.argv[3] === 'postgres' ? 'postgres' : 'pglite';
const LEGS = 5;
const chain = await startTestChain();
const h = await startHarness(backend, { chain: chain.stack.settings, tokenAddresses: chain.tokenAddresses, logLevel: 'fatal' });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The maker's quote once its permit is visible to it. */
async function permitted(maker: ChainMaker, quoteId: string): Promise<MakerQuote> {
  for (;;) {
    const q = (await maker.client.makerQuotes({ status: ['SELECTED'] })).items.find((x) => x.quoteId === quoteId);
    if (q?.permitSignature) return q;
    await pause(5);
  }
}

try {
  const makers: ChainMaker[] = [];
  for (let i = 0; i < LEGS; i++) makers.push(await chainMaker(h, chain));
  const taker = await fundedTaker(h, chain, { USDC: String(5000 * 2 * rounds) });
  const single = { accept: [] as number[], settled: [] as number[] };
  const sweep = { accept: [] as number[], settled: [] as number[] };
  const load = loadAverage();

  for (let round = 0; round < rounds; round++) {
    // One maker, the whole 1.5 ETH.
    {
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 10_000 });
      const maker = makers[round % LEGS]!;
      const { quoteId } = await maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4300' } });
      const t0 = performance.now();
      await taker.client.accept(rfqId, { quoteId });
      single.accept.push(performance.now() - t0);
      await relay(chain, maker, await permitted(maker, quoteId));
      while ((await taker.client.getRfq(rfqId)).status !== 'SETTLED') await pause(10);
      single.settled.push(performance.now() - t0);
    }
    // Five makers, 0.3 ETH each: five legs.
    {
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 10_000, fill: 'SWEEP' });
      const quoteIds = await Promise.all(makers.map(async (maker, i) => (await maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '0.3' }, makerReceives: { token: 'USDC', amount: String(860 + i) } })).quoteId));
      const t0 = performance.now();
      const taken = await taker.client.acceptSweep(rfqId, { sweep: true });
      sweep.accept.push(performance.now() - t0);
      if (taken.quoteIds.length !== LEGS) throw new Error(`the sweep selected ${taken.quoteIds.length} legs, not ${LEGS}`);
      await Promise.all(makers.map(async (maker, i) => relay(chain, maker, await permitted(maker, quoteIds[i]!))));
      for (;;) {
        const rfq = await taker.client.getRfq(rfqId);
        if (rfq.status === 'SETTLED') break;
        if (rfq.status === 'FAILED') throw new Error(`sweep ${rfqId} FAILED: ${JSON.stringify(rfq.fills)}`);
        await pause(10);
      }
      sweep.settled.push(performance.now() - t0);
    }
  }

  const fmt = (s: LatencySummary) => `p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms (n=${s.count})`;
  console.log(`sweep of ${LEGS} legs against one quote, permit2 on the devnet [${backend}], ${rounds} rounds interleaved; load average ${load} before`);
  console.log(`  accept call, one quote:      ${fmt(summarize(single.accept))}`);
  console.log(`  accept call, ${LEGS}-leg sweep:   ${fmt(summarize(sweep.accept))}`);
  console.log(`  accept -> SETTLED, one leg:  ${fmt(summarize(single.settled))}`);
  console.log(`  accept -> SETTLED, ${LEGS} legs:  ${fmt(summarize(sweep.settled))}`);
} finally {
  await h.close();
  await chain.stop();
}
