/**
 * What-if (opt-in phase `whatif`): the quote SQL behind a bare route (bench/whatif-server.ts),
 * five round trips as the service sends it vs one round trip (PL/pgSQL), each with and without
 * the outbox NOTIFY trigger (toggled on the bench database only), closed loop like the baseline.
 */
import { closedLoop, Signer, type LoadResult, type Req } from '../lib/http-load.ts';
import { repoRoot, spawnServer } from '../lib/processes.ts';
import { startSampling, type Resources } from '../lib/resources.ts';
import type { BenchDatabase } from '../lib/database.ts';

export interface WhatIfRun extends LoadResult {
  name: string;
  resources: Resources;
}

export async function runWhatIf(options: { db: BenchDatabase; rfqIds: string[]; durationSecs: number; connections: number; poolSize: number; log: (line: string) => void }): Promise<WhatIfRun[]> {
  const { db, rfqIds, log } = options;
  const makers = (await db.pool.query<{ account_id: string }>('select account_id from makers order by maker_id')).rows.map((r) => r.account_id);
  const server = await spawnServer({
    name: 'whatif',
    args: ['bench/whatif-server.ts'],
    env: { ...process.env, BENCH_DATABASE_URL: db.url, BENCH_POOL_SIZE: String(options.poolSize), PORT: '0' },
    cwd: repoRoot,
    ready: /listening (http:\/\/\S+)/,
  });
  const dummy = new Signer({ accessKey: 'bench-dummy-key', secret: Buffer.alloc(32, 7).toString('base64') });
  const R = rfqIds.length;
  const M = makers.length;
  const builder = (route: string) => (k: number): Req => {
    const body = { rfqId: rfqIds[k % R]!, makerAccountId: makers[(k + Math.floor(k / R)) % M]!, price: (3000 + (k % 997) / 100).toFixed(2) };
    return { ...dummy.request('POST', '/v1/rfq/quotes', body), path: route };
  };
  const runs: WhatIfRun[] = [];
  try {
    for (const [name, route, notify] of [
      ['5 round trips (service SQL), NOTIFY', '/quote-5', true],
      ['1 round trip (PL/pgSQL), NOTIFY', '/quote-1', true],
      ['5 round trips, no NOTIFY', '/quote-5', false],
      ['1 round trip, no NOTIFY', '/quote-1', false],
    ] as const) {
      await db.pool.query(`alter table outbox ${notify ? 'enable' : 'disable'} trigger outbox_notify`);
      log(`what-if: ${name}, closed loop ${options.connections} connections, ${options.durationSecs} s`);
      await closedLoop({ url: server.url, connections: options.connections, durationSecs: 1, build: builder(route) }); // warm-up
      const stop = await startSampling({ pool: db.pool, database: db.name, service: server, probeFile: null });
      const result = await closedLoop({ url: server.url, connections: options.connections, durationSecs: options.durationSecs, build: builder(route) });
      runs.push({ name, ...result, resources: await stop(result.ok) });
    }
  } finally {
    await db.pool.query('alter table outbox enable trigger outbox_notify');
    await server.stop();
  }
  return runs;
}
