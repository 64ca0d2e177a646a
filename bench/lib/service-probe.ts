/**
 * Preloaded into the service process by the benchmark (`node --import bench/lib/service-probe.ts`),
 * never by the service itself. Counts the SQL statements the process sends (by normalised
 * prefix, with their client-observed time), how long callers wait for and hold a pool
 * connection, event-loop delay and garbage-collection pauses (and, with BENCH_TIMELINE_FILE, each
 * request, quote write and quote batch on the wall clock: `--timeline`). On SIGUSR2 it writes a
 * snapshot to $BENCH_PROBE_FILE and starts counting afresh. Overhead: one Map update and two clock reads per statement.
 */
import { writeFileSync, renameSync } from 'node:fs';
import { constants as perfConstants, monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import pg from 'pg';

const file = process.env.BENCH_PROBE_FILE;
if (file) install(file);

function normalise(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\$\d+/g, '?').trim().slice(0, 70);
}

function summary(samples: number[]): { count: number; p50: number; p99: number; max: number; totalMs: number } {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!);
  let total = 0;
  for (const v of sorted) total += v;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.length ? sorted[sorted.length - 1]! : 0, totalMs: total };
}

// --timeline (bench/lib/timeline.ts): what the service did, on the wall clock, written at exit.
type TimelineEntry = import('./timeline.ts').TimelineEntry;
const timelineFile = process.env.BENCH_TIMELINE_FILE;
const timeline: TimelineEntry[] | null = timelineFile ? [] : null;
if (timeline) await installTimeline(timelineFile!, timeline);

async function installTimeline(file: string, entries: TimelineEntry[]): Promise<void> {
  process.on('exit', () => writeFileSync(file, JSON.stringify(entries)));
  const wall = (t: number) => performance.timeOrigin + t;
  // Each HTTP request from its 'request' event to its response's 'finish'.
  const http = await import('node:http');
  const emit = http.Server.prototype.emit as (...a: unknown[]) => boolean;
  http.Server.prototype.emit = function (this: unknown, event: string, ...args: unknown[]) {
    if (event === 'request') {
      const started = performance.now();
      const req = args[0] as { url: string; method: string };
      (args[1] as { on: (e: string, f: () => void) => void }).on('finish', () => entries.push(['request', wall(started), performance.now() - started, `${req.method} ${req.url}`]));
    }
    return emit.call(this, event, ...args);
  } as typeof http.Server.prototype.emit;
  // Each quote write from the writer's queue to its outcome (the same module the service loaded).
  const { QuoteWriter } = await import('../../src/services/rfq/write-quote.ts');
  const write = QuoteWriter.prototype.write;
  QuoteWriter.prototype.write = function (this: InstanceType<typeof QuoteWriter>, item: Parameters<typeof write>[0]) {
    const started = performance.now();
    const outcome = write.call(this, item);
    outcome.then(() => entries.push(['write', wall(started), performance.now() - started, '']), () => undefined);
    return outcome;
  };
}

function install(target: string): void {
  let queries = new Map<string, { count: number; totalMs: number }>();
  let totalQueries = 0;
  let waits: number[] = [];
  let holds: number[] = [];
  let seq = 0;
  const keys = new Map<string, string>();
  // One example (text and parameters) per statement kind, for EXPLAIN / pgbench replays.
  const samples = new Map<string, { text: string; values: unknown }>();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();

  // Garbage-collection pauses by kind: a tail a few times its median on a quiet machine is often
  // a request that waited out a mark-compact (pool wait, event-loop delay, GC, NOTIFY).
  const newGc = () => ({ minor: { count: 0, totalMs: 0, maxMs: 0 }, major: { count: 0, totalMs: 0, maxMs: 0 } });
  let gc = newGc();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MINOR ? gc.minor : gc.major;
      kind.count += 1;
      timeline?.push(['gc', performance.timeOrigin + entry.startTime, entry.duration, kind === gc.minor ? 'minor' : 'major']);
      kind.totalMs += entry.duration;
      if (entry.duration > kind.maxMs) kind.maxMs = entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });

  // Timers of 200 ms or more (auction deadlines, settlement expiries, pool idle timeouts): how
  // many fire before the wall-clock instant they were set for (Date.now() at scheduling + delay).
  let timers = { fired: 0, early: 0, earlyMaxMs: 0 };
  const originalSetTimeout = globalThis.setTimeout;
  const patchedSetTimeout = function (callback: unknown, delay?: number, ...rest: unknown[]) {
    if (typeof callback === 'function' && typeof delay === 'number' && delay >= 200) {
      const due = Date.now() + delay;
      const wrapped = function (this: unknown, ...args: unknown[]) {
        const early = due - Date.now();
        timers.fired += 1;
        if (early > 0) {
          timers.early += 1;
          if (early > timers.earlyMaxMs) timers.earlyMaxMs = early;
        }
        return (callback as (...a: unknown[]) => unknown).apply(this, args);
      };
      return (originalSetTimeout as unknown as (...a: unknown[]) => unknown)(wrapped, delay, ...rest);
    }
    return (originalSetTimeout as unknown as (...a: unknown[]) => unknown)(callback, delay, ...rest);
  };
  Object.assign(patchedSetTimeout, originalSetTimeout);
  globalThis.setTimeout = patchedSetTimeout as unknown as typeof setTimeout;

  type QueryFn = (this: pg.Client, ...args: unknown[]) => unknown;
  const proto = pg.Client.prototype as unknown as { query: QueryFn };
  const originalQuery = proto.query;
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : first && typeof first === 'object' && 'text' in first ? String((first as { text: unknown }).text) : '?';
    // Cheap raw key (length + prefix); the regex normalisation runs once per distinct key.
    const raw = `${text.length}:${text.slice(0, 64)}`;
    let key = keys.get(raw);
    if (key === undefined) {
      key = normalise(text);
      keys.set(raw, key);
    }
    const started = performance.now();
    const result = originalQuery.apply(this, args);
    totalQueries += 1;
    let entry = queries.get(key);
    if (!entry) {
      entry = { count: 0, totalMs: 0 };
      queries.set(key, entry);
    }
    entry.count += 1;
    if (!samples.has(key) && samples.size < 200) {
      const values = Array.isArray(args[1]) ? args[1] : first && typeof first === 'object' && 'values' in first ? (first as { values: unknown }).values : null;
      samples.set(key, { text, values: JSON.parse(JSON.stringify(values ?? null, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) });
    }
    const record = entry;
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      const done = () => {
        const took = performance.now() - started;
        if (timeline) {
          if (took > 4) timeline.push(['statement', performance.timeOrigin + started, took, key]);
          // A quote batch: its size is the number of items in its JSON argument.
          if (key.startsWith('select * from rfq_write_quotes')) timeline.push(['batch', performance.timeOrigin + started, took, String(String((args[1] as unknown[] | undefined)?.[0] ?? '').split('"ord":').length - 1)]);
        }
        record.totalMs += took;
      };
      (result as Promise<unknown>).then(done, done);
    }
    return result;
  };

  type ConnectFn = (this: pg.Pool, ...args: unknown[]) => unknown;
  const poolProto = pg.Pool.prototype as unknown as { connect: ConnectFn };
  const originalConnect = poolProto.connect;
  poolProto.connect = function (this: pg.Pool, ...args: unknown[]) {
    const started = performance.now();
    const onClient = (client: pg.PoolClient) => {
      const acquired = performance.now();
      waits.push(acquired - started);
      const release = client.release.bind(client);
      client.release = ((error?: Error | boolean) => {
        holds.push(performance.now() - acquired);
        return release(error);
      }) as typeof client.release;
    };
    if (typeof args[0] === 'function') {
      const callback = args[0] as (error: Error | undefined, client: pg.PoolClient, done: unknown) => void;
      return originalConnect.call(this, (error: Error | undefined, client: pg.PoolClient, done: unknown) => {
        if (!error && client) onClient(client);
        callback(error, client, error ? done : client?.release);
      });
    }
    return (originalConnect.apply(this, args) as Promise<pg.PoolClient>).then((client) => {
      onClient(client);
      return client;
    });
  };

  process.on('SIGUSR2', () => {
    seq += 1;
    const snapshot = {
      seq,
      queries: Object.fromEntries([...queries.entries()].sort((a, b) => b[1].count - a[1].count)),
      totalQueries,
      poolWait: summary(waits),
      poolHold: summary(holds),
      samples: Object.fromEntries(samples),
      timers,
      eventLoopDelay: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      gc,
    };
    gc = newGc();
    queries = new Map();
    totalQueries = 0;
    waits = [];
    holds = [];
    timers = { fired: 0, early: 0, earlyMaxMs: 0 };
    loop.reset();
    writeFileSync(`${target}.tmp`, JSON.stringify(snapshot));
    renameSync(`${target}.tmp`, target);
  });
}
