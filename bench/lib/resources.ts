/**
 * Per-phase resource accounting: CPU of the service process, of the PostgreSQL backends serving
 * the bench database, of this load-generator process and of the whole machine (which includes
 * whatever else runs on it), transactions committed, and the service probe's counters.
 */
import type pg from 'pg';
import { backendPids, dbCounters, type DbCounters } from './database.ts';
import { loadAverage, machineCpuMs, processCpuMs, readProbe, type Child, type GcPauses, type ProbeSnapshot } from './processes.ts';
import { round } from './stats.ts';

export interface Resources {
  wallMs: number;
  loadAverageStart: string;
  loadAverageEnd: string;
  /** Whole machine, percent of ALL cores (100 = both cores busy). */
  machineBusyPct: number;
  /** Percent of ONE core. */
  serviceCpuPct: number;
  postgresCpuPct: number;
  generatorCpuPct: number;
  /** CPU microseconds per completed request. */
  serviceCpuUsPerReq: number;
  postgresCpuUsPerReq: number;
  generatorCpuUsPerReq: number;
  /** Bench-database backends at start / end / present only at the end (their whole CPU counted). */
  backends: { start: number; end: number; new: number };
  commitsPerReq: number;
  rollbacks: number;
  deadlocks: number;
  probe: ProbeSummary | null;
}

export interface ProbeSummary {
  statementsPerReq: number;
  /** Top statements: count per request and mean client-observed ms. */
  topStatements: Array<{ sql: string; perReq: number; meanMs: number }>;
  poolWaitMs: { p50: number; p99: number; max: number };
  poolHoldMs: { p50: number; p99: number; max: number; perReq: number };
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  /** Timers >= 200 ms that fired before their wall-clock due time (see service-probe.ts). */
  timers: { fired: number; early: number; earlyMaxMs: number } | null;
  /** Garbage-collection pauses in the phase (null from a probe without them). */
  gc: GcPauses | null;
}

interface Snapshot {
  at: number;
  load: string;
  machine: { busy: number; total: number };
  service: number | null;
  backends: Map<number, number>;
  generator: number;
  db: DbCounters;
}

export interface SamplerDeps {
  pool: pg.Pool;
  database: string;
  service: Child | null;
  probeFile: string | null;
}

async function snapshot(deps: SamplerDeps): Promise<Snapshot> {
  const pids = await backendPids(deps.pool, deps.database);
  const backends = new Map<number, number>();
  for (const pid of pids) {
    const cpu = processCpuMs(pid);
    if (cpu !== null) backends.set(pid, cpu);
  }
  const usage = process.cpuUsage();
  return {
    at: performance.now(),
    load: loadAverage(),
    machine: machineCpuMs(),
    service: deps.service ? processCpuMs(deps.service.pid) : null,
    backends,
    generator: (usage.user + usage.system) / 1000,
    db: await dbCounters(deps.pool, deps.database),
  };
}

export async function startSampling(deps: SamplerDeps): Promise<(requests: number) => Promise<Resources>> {
  if (deps.probeFile && deps.service) await readProbe(deps.service, deps.probeFile); // reset the counters
  const start = await snapshot(deps);
  return async (requests: number) => {
    const end = await snapshot(deps);
    const probe = deps.probeFile && deps.service ? await readProbe(deps.service, deps.probeFile) : null;
    const wallMs = end.at - start.at;
    const n = Math.max(1, requests);
    let pgMs = 0;
    for (const [pid, cpu] of end.backends) pgMs += cpu - (start.backends.get(pid) ?? 0); // new backends: all their CPU is this phase's
    const serviceMs = end.service !== null && start.service !== null ? end.service - start.service : 0;
    const generatorMs = end.generator - start.generator;
    return {
      wallMs: Math.round(wallMs),
      loadAverageStart: start.load,
      loadAverageEnd: end.load,
      machineBusyPct: round((100 * (end.machine.busy - start.machine.busy)) / Math.max(1, end.machine.total - start.machine.total), 1),
      serviceCpuPct: round((100 * serviceMs) / wallMs, 1),
      postgresCpuPct: round((100 * pgMs) / wallMs, 1),
      generatorCpuPct: round((100 * generatorMs) / wallMs, 1),
      serviceCpuUsPerReq: round((1000 * serviceMs) / n, 0),
      postgresCpuUsPerReq: round((1000 * pgMs) / n, 0),
      generatorCpuUsPerReq: round((1000 * generatorMs) / n, 0),
      backends: { start: start.backends.size, end: end.backends.size, new: [...end.backends.keys()].filter((pid) => !start.backends.has(pid)).length },
      commitsPerReq: round((end.db.xactCommit - start.db.xactCommit) / n, 2),
      rollbacks: end.db.xactRollback - start.db.xactRollback,
      deadlocks: end.db.deadlocks - start.db.deadlocks,
      probe: probe ? summarizeProbe(probe, n) : null,
    };
  };
}

const roundPauses = (p: GcPauses['minor']) => ({ count: p.count, totalMs: round(p.totalMs, 1), maxMs: round(p.maxMs, 2) });

function summarizeProbe(probe: ProbeSnapshot, n: number): ProbeSummary {
  return {
    statementsPerReq: round(probe.totalQueries / n, 2),
    topStatements: Object.entries(probe.queries)
      .slice(0, 20)
      .map(([sql, q]) => ({ sql, perReq: round(q.count / n, 3), meanMs: round(q.totalMs / Math.max(1, q.count), 3) })),
    poolWaitMs: { p50: round(probe.poolWait.p50, 3), p99: round(probe.poolWait.p99, 3), max: round(probe.poolWait.max, 3) },
    poolHoldMs: { p50: round(probe.poolHold.p50, 3), p99: round(probe.poolHold.p99, 3), max: round(probe.poolHold.max, 3), perReq: round(probe.poolHold.count / n, 2) },
    timers: probe.timers ?? null,
    gc: probe.gc ? { minor: roundPauses(probe.gc.minor), major: roundPauses(probe.gc.major) } : null,
    eventLoopDelayMs: { p50: round(probe.eventLoopDelay.p50, 2), p99: round(probe.eventLoopDelay.p99, 2), max: round(probe.eventLoopDelay.max, 2) },
  };
}
