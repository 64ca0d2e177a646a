/**
 * rfq-service benchmark (`npm run bench`, or `node bench/run.ts --quick`; `--help` for options).
 *
 * One service process (node src/runtime/main.ts, embedded mode on a fresh PostgreSQL database
 * bench_<hex>, dropped at the end), signed requests through the real HTTP stack, the load
 * generator in this process on the same machine. Phases:
 *   1. baseline: a bare Fastify route doing one insert transaction (own process, same pool size);
 *      closed loop (autocannon, 10 connections) and open loop at 100/s and 1000/s;
 *   2. quotes: M makers on R open RFQs: first quotes, then re-quotes closed loop and open loop
 *      (open-loop latency from the scheduled send time: no coordinated omission);
 *   3. accept: latency one at a time and with some concurrency;
 *   4. close / burst: auction close lateness at 100 closes/s and with 1000 auctions ending in one
 *      second, both as stamped by the service (quotedAt) and as committed (NOTIFY observer).
 * Opt-in analysis: `db` (pgbench replay of the quote SQL in variants), `whatif` (the quote SQL
 * behind a bare route, 5 round trips vs 1), `--hot-taker`, `--cpu-prof` (then
 * `node bench/profile-summary.ts bench/results/<stamp>.cpuprofile`).
 * The service runs with bench/lib/service-probe.ts preloaded (statements, pool wait, event-loop
 * delay, early timers per phase; `--no-probe` to disable). Every figure is printed with its ratio
 * to the matching baseline figure; the full result goes to bench/results/<stamp>.json.
 */
import { copyFile, mkdtemp, mkdir, rm, writeFile, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AdminClient } from '../src/client/admin-client.ts';
import { createBenchDatabase, type BenchDatabase } from './lib/database.ts';
import { HttpClient } from './lib/http-load.ts';
import { loadAverage, readProbe, repoRoot } from './lib/processes.ts';
import type { SamplerDeps } from './lib/resources.ts';
import { makeMakers, makeTakers, seedReferenceData, startService, type Service } from './lib/venue.ts';
import { runBaseline, type BaselineResult } from './phases/baseline.ts';
import { runQuotes, type QuotesResult } from './phases/quotes.ts';
import { runAccept, type AcceptResult } from './phases/accept.ts';
import { runClose, type CloseResult } from './phases/close.ts';
import { runDbCeiling, type DbVariant } from './phases/db-ceiling.ts';
import { runWhatIf, type WhatIfRun } from './phases/whatif.ts';
import { printReport } from './report.ts';

const HELP = `usage: node bench/run.ts [options]
  --quick              short run (3 s per load step, fewer accepts/closes), about 1.5 min
  --duration <s>       seconds per load step (default 10, quick 3)
  --only <list>        phases: baseline,quotes,accept,close,burst (default all), and the opt-in
                       db (pgbench replay of the quote SQL, needs quotes and the pgbench binary),
                       whatif (the quote SQL behind a bare route: 5 vs 1 round trips, needs quotes)
  --makers <n>         makers (default 50)      --rfqs <n>     open RFQs (default 200)
  --takers <n>         takers owning the RFQs (default 50)
  --connections <n>    closed-loop connections, baseline and service alike (default 10)
  --pool-size <n>      PostgreSQL pool of the service and of the baseline (default 10)
  --extra-rates <list> more open-loop rates for baseline and re-quotes, e.g. 300,500
  --analysis           add the db and whatif phases (about +80 s)
  --hot-taker          also run the re-quote closed loop on 20 RFQs all owned by ONE taker
  --no-probe           do not preload bench/lib/service-probe.ts into the service
  --cpu-prof           write a V8 CPU profile of the service to bench/results/
  --keep-db            do not drop the bench database
  --db <url>           PostgreSQL to create the bench database on
                       (default $BENCH_DATABASE_URL or postgres://postgres@127.0.0.1:5432/test)`;

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    only: { type: 'string' },
    makers: { type: 'string', default: '50' },
    rfqs: { type: 'string', default: '200' },
    takers: { type: 'string', default: '50' },
    connections: { type: 'string', default: '10' },
    'pool-size': { type: 'string', default: '10' },
    'hot-taker': { type: 'boolean', default: false },
    analysis: { type: 'boolean', default: false },
    'extra-rates': { type: 'string', default: '' },
    'no-probe': { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
    'keep-db': { type: 'boolean', default: false },
    db: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});
if (args.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

const quick = args.quick;
const durationSecs = Number(args.duration ?? (quick ? 3 : 10));
const phases = new Set((args.only ?? 'baseline,quotes,accept,close,burst').split(','));
if (args.analysis) {
  phases.add('db');
  phases.add('whatif');
}
const makersCount = Number(args.makers);
const rfqCount = Number(args.rfqs);
const takersCount = Number(args.takers);
const connections = Number(args.connections);
const extraRates = (args['extra-rates'] ?? '').split(',').filter(Boolean).map(Number);
const poolSize = Number(args['pool-size']);
const adminUrl = args.db ?? process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const LONG_WINDOW_MS = 600_000;

const started = Date.now();
const log = (line: string) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);

export interface BenchResults {
  startedAt: string;
  finishedAt?: string;
  durationSecs: number;
  quick: boolean;
  machine: { cpus: number; cpuModel: string; node: string; postgres: string; loadAverageStart: string; loadAverageEnd?: string };
  config: Record<string, unknown>;
  baseline?: BaselineResult;
  quotes?: QuotesResult;
  hotTaker?: QuotesResult;
  accept?: AcceptResult;
  close100?: CloseResult;
  burst?: CloseResult;
  db?: DbVariant[];
  whatIf?: WhatIfRun[];
  service?: { stderrLines: number; stderrTail: string[]; exitCode: number | null; cpuProfile?: string };
  failures: string[];
}

async function main(): Promise<void> {
  const resultsDir = path.join(repoRoot, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const results: BenchResults = {
    startedAt: new Date(started).toISOString(),
    durationSecs,
    quick,
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '?', node: process.version, postgres: '?', loadAverageStart: loadAverage() },
    config: { extraRates, makers: makersCount, rfqs: rfqCount, takers: takersCount, connections, poolSize, phases: [...phases], probe: !args['no-probe'] },
    failures: [],
  };
  log(`load average at start: ${results.machine.loadAverageStart} (${results.machine.cpus} CPUs)`);
  const db: BenchDatabase = await createBenchDatabase(adminUrl);
  log(`bench database ${db.name}`);
  const { rows } = await db.pool.query<{ server_version: string }>('show server_version');
  results.machine.postgres = rows[0]?.server_version ?? '?';
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'rfq-bench-'));
  const cpuProfDir = args['cpu-prof'] ? await mkdtemp(path.join(os.tmpdir(), 'rfq-bench-prof-')) : null;
  let service: Service | null = null;
  let client: HttpClient | null = null;
  // Ctrl-C: stop the service and drop the database rather than leave them behind.
  process.once('SIGINT', () => {
    log('interrupted: stopping the service and dropping the bench database');
    void (async () => {
      await service?.stop().catch(() => undefined);
      if (!args['keep-db']) await db.drop().catch(() => undefined);
      await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
      process.exit(130);
    })();
  });
  try {
    if (phases.has('baseline')) {
      results.baseline = await runBaseline({ db, durationSecs, connections, poolSize, extraRates, log });
    }
    const needService = ['quotes', 'accept', 'close', 'burst'].some((p) => phases.has(p));
    if (needService) {
      log('starting the service process');
      service = await startService({ databaseUrl: db.url, dataDir, probeFile: args['no-probe'] ? null : path.join(dataDir, 'probe.json'), cpuProfDir, poolSize });
      log(`service pid ${service.pid} at ${service.url}`);
      client = new HttpClient(service.url);
      const admin = new AdminClient(service.url, service.adminToken);
      await seedReferenceData(admin, { maxWindowMs: LONG_WINDOW_MS, settlementHeadroomSecs: 3600 });
      log(`signing in ${makersCount} makers and ${takersCount} takers (SIWE)`);
      const makers = await makeMakers(service.url, admin, makersCount);
      const takers = await makeTakers(service.url, admin, takersCount, '1000000000');
      const sampling: SamplerDeps = { pool: db.pool, database: db.name, service, probeFile: args['no-probe'] ? null : path.join(dataDir, 'probe.json') };

      if (phases.has('quotes')) {
        results.quotes = await runQuotes({
          url: service.url, client, makers, takers, rfqs: rfqCount, windowMs: LONG_WINDOW_MS, durationSecs, connections, openLoop: true, extraRates, sampling, log, label: 'quotes',
        });
        if (args['hot-taker']) {
          const [hot] = await makeTakers(service.url, admin, 1, '1000000000');
          results.hotTaker = await runQuotes({
            url: service.url, client, makers, takers: [hot!], rfqs: 20, windowMs: LONG_WINDOW_MS, durationSecs, connections, openLoop: false, extraRates: [], sampling, log, label: 'hot taker',
          });
        }
      }
      // Analysis phases: a failure (say, no pgbench binary) is recorded and the run goes on.
      const analysis = async (name: string, run: () => Promise<void>) => {
        try {
          await run();
        } catch (error) {
          results.failures.push(`${name}: ${String((error as Error).message ?? error)}`);
          log(`${name} failed: ${String((error as Error).message ?? error)}`);
        }
      };
      if (phases.has('db') && results.quotes) {
        await analysis('db', async () => {
          results.db = await runDbCeiling({ pool: db.pool, url: db.url, connections, durationSecs: Math.max(3, Math.min(durationSecs, 8)), log });
        });
      }
      if (phases.has('whatif') && results.quotes) {
        await analysis('whatif', async () => {
          results.whatIf = await runWhatIf({ db, rfqIds: results.quotes!.rfqIds, durationSecs: Math.max(3, Math.min(durationSecs, 8)), connections, poolSize, log });
        });
      }
      if (phases.has('accept')) {
        results.accept = await runAccept({
          client, makers, takers, sequential: quick ? 100 : 300, concurrent: quick ? 200 : 600, concurrency: connections, windowMs: LONG_WINDOW_MS, sampling, log,
        });
      }
      if (phases.has('close')) {
        const count = 100 * durationSecs;
        results.close100 = await runClose({
          label: 'close 100/s', client, dbUrl: db.url, makers, takers, count, spanMs: durationSecs * 1000, quotesPerRfq: 2, leadMs: 5000 + count * 15, sampling, log,
        });
      }
      if (phases.has('burst')) {
        results.burst = await runClose({
          label: 'burst 1000 in 1 s', client, dbUrl: db.url, makers, takers, count: 1000, spanMs: 1000, quotesPerRfq: 2, leadMs: 5000 + 1000 * 15, sampling, log,
        });
      }
    }
    if (service && !args['no-probe']) {
      // One example of every statement the service sent (text + parameters), for EXPLAIN / pgbench replays.
      const last = await readProbe(service, path.join(dataDir, 'probe.json'));
      if (last?.samples) await writeFile(path.join(resultsDir, `${stamp}-statements.json`), `${JSON.stringify(last.samples, null, 2)}\n`);
    }
  } catch (error) {
    results.failures.push(String((error as Error).stack ?? error));
    log(`FAILED: ${String((error as Error).stack ?? error)}`);
  } finally {
    client?.close();
    if (service) {
      const exitCode = await service.stop();
      results.service = { stderrLines: service.stderrLines, stderrTail: service.stderrTail.slice(-10), exitCode };
      if (cpuProfDir) {
        const files = (await readdir(cpuProfDir)).filter((f) => f.endsWith('.cpuprofile'));
        if (files[0]) {
          const target = path.join(resultsDir, `${stamp}.cpuprofile`);
          await copyFile(path.join(cpuProfDir, files[0]), target);
          results.service.cpuProfile = path.relative(repoRoot, target);
        }
        await rm(cpuProfDir, { recursive: true, force: true });
      }
    }
    if (args['keep-db']) {
      log(`keeping database ${db.name}`);
      await db.pool.end();
    } else {
      await db.drop().catch((error: unknown) => log(`dropping ${db.name} failed: ${String(error)}`));
    }
    await rm(dataDir, { recursive: true, force: true });
  }
  results.finishedAt = new Date().toISOString();
  results.machine.loadAverageEnd = loadAverage();
  const file = path.join(resultsDir, `${stamp}${quick ? '-quick' : ''}.json`);
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(printReport(results));
  process.stdout.write(`\nfull results: ${path.relative(process.cwd(), file)}  (total ${((Date.now() - started) / 1000).toFixed(0)} s)\n`);
  if (results.failures.length > 0) process.exitCode = 1;
}

await main();
