/**
 * Maker quote submission: M makers on R open RFQs (R / T per taker). Every request is a signed
 * POST /v1/rfq/quotes. Pair k goes to RFQ k mod R and maker (k + floor(k / R)) mod M, a
 * bijection onto the M x R pairs (gcd(R + 1, M) = 1 for the defaults) in which consecutive
 * requests hit different RFQs, different takers and different makers, so no single row is hot.
 * The first pass over all pairs creates the quotes; everything measured after it is a re-quote.
 */
import { closedLoop, inParallel, openLoop, type HttpClient, type LoadResult, type Req } from '../lib/http-load.ts';
import { startSampling, type Resources, type SamplerDeps } from '../lib/resources.ts';
import { createRfq, INSTRUMENT, quoteBody, type Actor } from '../lib/venue.ts';

export interface QuotesResult {
  rfqs: number;
  rfqIds: string[];
  makers: number;
  takers: number;
  firstQuotes: LoadResult & { resources: Resources };
  closed: LoadResult & { resources: Resources };
  rate100: LoadResult & { resources: Resources } | null;
  rate1000: LoadResult & { resources: Resources } | null;
  extraRates: Array<LoadResult & { resources: Resources }>;
}

export interface QuotesOptions {
  url: string;
  client: HttpClient;
  makers: Actor[];
  /** RFQ i belongs to takers[i % takers.length]. */
  takers: Actor[];
  rfqs: number;
  windowMs: number;
  durationSecs: number;
  connections: number;
  openLoop: boolean;
  extraRates: number[];
  sampling: SamplerDeps;
  log: (line: string) => void;
  label: string;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

export async function runQuotes(options: QuotesOptions): Promise<QuotesResult> {
  const { client, makers, takers, rfqs: R, durationSecs, connections, log, label } = options;
  const M = makers.length;
  if (gcd(R + 1, M) !== 1) log(`${label}: note gcd(R+1, M) != 1, the pair sequence repeats before covering every pair`);
  log(`${label}: creating ${R} open RFQs (window ${options.windowMs} ms) for ${takers.length} taker(s)`);
  const created = await inParallel(Array.from({ length: R }, (_, i) => i), 10, (i) =>
    createRfq(client, takers[i % takers.length]!, { instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', windowMs: options.windowMs }),
  );
  const rfqIds = created.map((c) => c.rfqId);
  const build = (k: number): Req => {
    const rfqId = rfqIds[k % R]!;
    const maker = makers[(k + Math.floor(k / R)) % M]!;
    return maker.signer.request('POST', '/v1/rfq/quotes', quoteBody(rfqId, (3000 + (k % 997) / 100).toFixed(2)));
  };
  const measure = async (run: () => Promise<LoadResult & { nextIndex?: number }>) => {
    const stop = await startSampling(options.sampling);
    const result = await run();
    return { ...result, resources: await stop(result.ok) };
  };

  log(`${label}: first quote on each of the ${M * R} (maker, RFQ) pairs, closed loop ${connections} connections`);
  const firstQuotes = await measure(() => closedLoop({ url: options.url, connections, amount: M * R, build, startIndex: 0 }));
  let next = M * R;
  log(`${label}: re-quotes, closed loop ${connections} connections, ${durationSecs} s`);
  const closed = await measure(() => closedLoop({ url: options.url, connections, durationSecs, build, startIndex: next }));
  next = closed.nextIndex ?? next + closed.sent;
  let rate100: QuotesResult['rate100'] = null;
  let rate1000: QuotesResult['rate1000'] = null;
  if (options.openLoop) {
    log(`${label}: re-quotes, open loop 100/s, ${durationSecs} s`);
    rate100 = await measure(() => openLoop({ client, rate: 100, durationMs: durationSecs * 1000, build, startIndex: next }));
    next += rate100.sent;
    log(`${label}: re-quotes, open loop 1000/s, ${durationSecs} s`);
    rate1000 = await measure(() => openLoop({ client, rate: 1000, durationMs: durationSecs * 1000, build, startIndex: next }));
    next += rate1000.sent;
  }
  const extraRates: QuotesResult['extraRates'] = [];
  for (const rate of options.openLoop ? options.extraRates : []) {
    log(`${label}: re-quotes, open loop ${rate}/s, ${durationSecs} s`);
    const r = await measure(() => openLoop({ client, rate, durationMs: durationSecs * 1000, build, startIndex: next }));
    next += r.sent;
    extraRates.push(r);
  }
  return { rfqs: R, rfqIds, makers: M, takers: takers.length, firstQuotes, closed, rate100, rate1000, extraRates };
}
