/**
 * The bare insert route, measured in the same run as the service: a Fastify process doing one
 * `begin; insert; commit` per request. The load generator sends the same body and the same
 * (signed) headers as a quote submission, so its own cost per request is the same.
 */
import { closedLoop, HttpClient, openLoop, Signer, type LoadResult, type Req } from '../lib/http-load.ts';
import { repoRoot, spawnServer } from '../lib/processes.ts';
import { startSampling, type Resources } from '../lib/resources.ts';
import type { BenchDatabase } from '../lib/database.ts';
import { quoteBody } from '../lib/venue.ts';

export interface BaselineResult {
  closed: LoadResult & { resources: Resources };
  rate100: LoadResult & { resources: Resources };
  rate1000: LoadResult & { resources: Resources };
  /** --extra-rates: more open-loop steps, same shape. */
  extraRates: Array<LoadResult & { resources: Resources }>;
}

export interface BaselineOptions {
  db: BenchDatabase;
  durationSecs: number;
  connections: number;
  poolSize: number;
  extraRates: number[];
  log: (line: string) => void;
}

export async function runBaseline(options: BaselineOptions): Promise<BaselineResult> {
  const { db, durationSecs, connections, log } = options;
  const server = await spawnServer({
    name: 'baseline',
    args: ['bench/baseline-server.ts'],
    env: { ...process.env, BENCH_DATABASE_URL: db.url, BENCH_POOL_SIZE: String(options.poolSize), PORT: '0' },
    cwd: repoRoot,
    ready: /listening (http:\/\/\S+)/,
  });
  const client = new HttpClient(server.url);
  const dummy = new Signer({ accessKey: 'bench-dummy-key', secret: Buffer.alloc(32, 7).toString('base64') });
  const build = (i: number): Req => {
    const req = dummy.request('POST', '/v1/rfq/quotes', quoteBody(`rfq-${i % 200}`, (3000 + (i % 997) / 100).toFixed(2)));
    return { ...req, path: '/insert' };
  };
  const sampling = { pool: db.pool, database: db.name, service: server, probeFile: null };
  try {
    log('baseline: warm-up (2 s)');
    await closedLoop({ url: server.url, connections, durationSecs: 2, build });
    log(`baseline: closed loop, ${connections} connections, ${durationSecs} s`);
    let stop = await startSampling(sampling);
    const closed = await closedLoop({ url: server.url, connections, durationSecs, build });
    const closedRes = { ...closed, resources: await stop(closed.ok) };
    log(`baseline: open loop 100/s, ${durationSecs} s`);
    stop = await startSampling(sampling);
    const r100 = await openLoop({ client, rate: 100, durationMs: durationSecs * 1000, build });
    const rate100 = { ...r100, resources: await stop(r100.ok) };
    log(`baseline: open loop 1000/s, ${durationSecs} s`);
    stop = await startSampling(sampling);
    const r1000 = await openLoop({ client, rate: 1000, durationMs: durationSecs * 1000, build });
    const rate1000 = { ...r1000, resources: await stop(r1000.ok) };
    const extraRates: BaselineResult['extraRates'] = [];
    for (const rate of options.extraRates) {
      log(`baseline: open loop ${rate}/s, ${durationSecs} s`);
      stop = await startSampling(sampling);
      const r = await openLoop({ client, rate, durationMs: durationSecs * 1000, build });
      extraRates.push({ ...r, resources: await stop(r.ok) });
    }
    return { closed: closedRes, rate100, rate1000, extraRates };
  } finally {
    client.close();
    await server.stop();
  }
}
