/**
 * Accept latency: N taker-driven RFQs, each with one quote, accepted through signed
 * POST /v1/rfq/requests/{id}/accept, first one at a time, then `concurrency` at once.
 * Latency is from just before the request is signed to the 202.
 */
import { inParallel, timedPool, type HttpClient } from '../lib/http-load.ts';
import { startSampling, type Resources, type SamplerDeps } from '../lib/resources.ts';
import { summarize, type LatencySummary } from '../lib/stats.ts';
import { createRfq, INSTRUMENT, quoteBody, type Actor, type CreatedRfq } from '../lib/venue.ts';

export interface AcceptRun {
  count: number;
  concurrency: number;
  latency: LatencySummary;
  throughput: number;
  errors: Record<string, number>;
  resources: Resources;
}

export interface AcceptResult {
  sequential: AcceptRun;
  concurrent: AcceptRun;
}

export interface AcceptOptions {
  client: HttpClient;
  makers: Actor[];
  takers: Actor[];
  sequential: number;
  concurrent: number;
  concurrency: number;
  windowMs: number;
  sampling: SamplerDeps;
  log: (line: string) => void;
}

async function prepare(options: AcceptOptions, count: number, offset: number): Promise<Array<CreatedRfq & { quoteId: string }>> {
  const { client, makers, takers } = options;
  const rfqs = await inParallel(Array.from({ length: count }, (_, i) => i), 10, (i) =>
    createRfq(client, takers[(offset + i) % takers.length]!, { instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', windowMs: options.windowMs }),
  );
  return inParallel(rfqs, 10, async (rfq, i) => {
    const maker = makers[(offset + i) % makers.length]!;
    const quote = await client.json<{ quoteId: string }>(maker.signer.request('POST', '/v1/rfq/quotes', quoteBody(rfq.rfqId, '3000')));
    return { ...rfq, quoteId: quote.quoteId };
  });
}

async function acceptAll(options: AcceptOptions, rfqs: Array<CreatedRfq & { quoteId: string }>, concurrency: number): Promise<AcceptRun> {
  const stop = await startSampling(options.sampling);
  const run = await timedPool(rfqs, concurrency, async (rfq) => {
    const req = rfq.taker.signer.request('POST', `/v1/rfq/requests/${encodeURIComponent(rfq.rfqId)}/accept`, { quoteId: rfq.quoteId, expectedVersion: 1 });
    const accepted = await options.client.json<{ status: string }>(req);
    if (accepted.status !== 'QUOTED') throw new Error(`accept answered ${accepted.status}`);
  });
  const resources = await stop(run.latencies.length);
  return {
    count: rfqs.length,
    concurrency,
    latency: summarize(run.latencies),
    throughput: (run.latencies.length * 1000) / run.elapsedMs,
    errors: run.errors,
    resources,
  };
}

export async function runAccept(options: AcceptOptions): Promise<AcceptResult> {
  const { log } = options;
  log(`accept: preparing ${options.sequential + options.concurrent} RFQs with one quote each`);
  const seqRfqs = await prepare(options, options.sequential, 0);
  const concRfqs = await prepare(options, options.concurrent, options.sequential);
  log(`accept: ${options.sequential} accepts, one at a time`);
  const sequential = await acceptAll(options, seqRfqs, 1);
  log(`accept: ${options.concurrent} accepts, ${options.concurrency} at once`);
  const concurrent = await acceptAll(options, concRfqs, options.concurrency);
  return { sequential, concurrent };
}
