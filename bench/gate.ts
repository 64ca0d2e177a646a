/**
 * The benchmark as a gate (`npm run bench -- --check`): a table, each figure
 * beside its floor measured in the same run, the ratio, the target ratio and PASS / MISS.
 *
 * Targets are ratios to a same-run floor, never absolute times, so a shared or slow machine
 * moves figure and floor together. Where a row has an absolute target (a quiet-machine time),
 * the ratio is that target over the floor measured beside it when the target was set
 * (docs/decisions/0047-performance-gate.md); the absolute target is printed for reference and not judged.
 * A figure that is missing (its phase failed or was not run) is a MISS under --check.
 */
import type { BenchResults } from './run.ts';
import type { LatencySummary } from './lib/stats.ts';
import type { Resources } from './lib/resources.ts';

export interface GateRow {
  figure: string;
  /** NaN when the figure is missing. */
  value: number;
  unit: 'ms' | '/s';
  floorLabel: string;
  floor: number;
  /** value / floor. */
  ratio: number;
  /** `<=` for latencies, `>=` for throughputs. */
  direction: '<=' | '>=';
  targetRatio: number;
  /** The absolute latency target on a quiet machine (ms), printed only; null where there is none. */
  quietMaxMs: number | null;
  /**
   * That absolute target judged on this run's figure (null where there is none): printed beside
   * the ratio's verdict, never part of the exit code. On a quiet machine the floors are near
   * their raw round trip, so a ratio derived from busier floors asks more than the absolute
   * target does; this column is the quiet-machine judgement.
   */
  quietPass: boolean | null;
  /** Conditions besides the ratio (every request answered, every close seen); empty when met. */
  problems: string[];
  pass: boolean;
  /** Throughput rows: the most this run's CPU per request allows (see `cpuCeiling`); null elsewhere. */
  ceiling: CpuCeiling | null;
}

/**
 * The most a throughput figure could be at the CPU its requests cost in this run: every core
 * busy with nothing but the service, PostgreSQL and the load generator, no idle time, no
 * queueing. A target ratio above `ratio` cannot be met by shorter waits or more work in flight:
 * only by spending less CPU per request (larger batches included), at most `neededUs`.
 */
export interface CpuCeiling {
  /** Service + PostgreSQL + load generator, CPU microseconds per completed request. */
  perReqUs: number;
  cores: number;
  maxPerSec: number;
  /** maxPerSec / the row's floor. */
  ratio: number;
  /** The CPU per request at which the ceiling is the target ratio of the floor. */
  neededUs: number;
  /** The floor's own CPU per request in the same run, for comparison (null when not sampled). */
  floorPerReqUs: number | null;
}

type CpuPerReq = Pick<Resources, 'serviceCpuUsPerReq' | 'postgresCpuUsPerReq' | 'generatorCpuUsPerReq'>;
const usPerReq = (r: CpuPerReq) => r.serviceCpuUsPerReq + r.postgresCpuUsPerReq + r.generatorCpuUsPerReq;

export function cpuCeiling(resources: CpuPerReq | undefined, cores: number, floor: number | undefined, targetRatio: number, floorResources?: CpuPerReq): CpuCeiling | null {
  if (!resources || floor === undefined || !(floor > 0) || !(cores > 0)) return null;
  const perReqUs = usPerReq(resources);
  if (!(perReqUs > 0)) return null;
  const maxPerSec = (cores * 1e6) / perReqUs;
  const floorUs = floorResources ? usPerReq(floorResources) : 0;
  return { perReqUs, cores, maxPerSec, ratio: maxPerSec / floor, neededUs: (cores * 1e6) / (targetRatio * floor), floorPerReqUs: floorUs > 0 ? floorUs : null };
}

function row(
  figure: string,
  value: number | undefined,
  unit: GateRow['unit'],
  floorLabel: string,
  floor: number | undefined,
  direction: GateRow['direction'],
  targetRatio: number,
  quietMaxMs: number | null,
  problems: string[] = [],
  ceiling: CpuCeiling | null = null,
): GateRow {
  const v = value ?? NaN;
  const f = floor ?? NaN;
  const ratio = v / f;
  const within = direction === '<=' ? ratio <= targetRatio : ratio >= targetRatio;
  const quietPass = quietMaxMs === null ? null : Number.isFinite(v) && v <= quietMaxMs && problems.length === 0;
  return { figure, value: v, unit, floorLabel, floor: f, ratio, direction, targetRatio, quietMaxMs, quietPass, problems, pass: Number.isFinite(ratio) && within && problems.length === 0, ceiling };
}

const errorsOf = (errors: Record<string, number> | undefined, what: string) => {
  const n = Object.values(errors ?? {}).reduce((a, b) => a + b, 0);
  return n > 0 ? [`${n} ${what} failed`] : [];
};

/** The gate's rows, in order, for the phases that ran (`--only` skips the others). */
export function gateRows(results: BenchResults, ran: Set<string>): GateRow[] {
  const b = results.baseline;
  const q = results.quotes;
  const a = results.accept;
  const cores = results.machine.cpus;
  const rows: GateRow[] = [];
  const p99 = (l: LatencySummary | undefined) => l?.p99;
  if (ran.has('quotes')) {
    rows.push(row(`re-quote, closed loop ${q?.closed.connections ?? ''} conn`, q?.closed.throughput, '/s', 'bare insert closed', b?.closed.throughput, '>=', 1.0, null, errorsOf(q?.closed.errors, 're-quotes'), cpuCeiling(q?.closed.resources, cores, b?.closed.throughput, 1.0, b?.closed.resources)));
    rows.push(row('re-quote p99 at 1,000/s offered', p99(q?.rate1000?.latency), 'ms', 'bare 1,000/s p99', p99(b?.rate1000.latency), '<=', 1.5, 20, q?.rate1000?.failed ? [`${q.rate1000.failed} re-quotes failed`] : []));
  }
  if (ran.has('accept')) {
    rows.push(row('accept p99, one at a time', p99(a?.sequential.latency), 'ms', 'bare 100/s p99', p99(b?.rate100.latency), '<=', 1.4, 15, errorsOf(a?.sequential.errors, 'accepts')));
    rows.push(row(`accept p99, ${a?.concurrent.concurrency ?? 10} at once`, p99(a?.concurrent.latency), 'ms', 'bare closed p99', p99(b?.closed.latency), '<=', 2.5, 25, errorsOf(a?.concurrent.errors, 'accepts')));
    rows.push(row(`accept throughput, ${a?.concurrent.concurrency ?? 10} at once`, a?.concurrent.throughput, '/s', 'bare insert closed', b?.closed.throughput, '>=', 0.5, null, [], cpuCeiling(a?.concurrent.resources, cores, b?.closed.throughput, 0.5, b?.closed.resources)));
  }
  for (const [phase, close, floor, floorLabel, target, quiet] of [
    ['close', results.close100, b?.rate100, 'bare 100/s p99', 2.3, 25],
    ['burst', results.burst, b?.rate1000, 'bare 1,000/s p99', 3.2, 100],
  ] as const) {
    if (!ran.has(phase)) continue;
    const problems: string[] = [];
    if (!close) problems.push('phase failed');
    else {
      if (close.notSeen > 0) problems.push(`${close.notSeen} closes never seen`);
      if ((close.outcomes.PENDING ?? 0) > 0) problems.push(`${close.outcomes.PENDING} RFQs still open`);
      if (close.setupOverranMs > 0) problems.push(`set-up overran the first deadline by ${close.setupOverranMs} ms`);
    }
    rows.push(row(`close lateness p99 observed, ${phase === 'close' ? '100 closes/s' : '1,000 ending in 1 s'}`, close?.observed.p99, 'ms', floorLabel, p99(floor?.latency), '<=', target, quiet, problems));
  }
  if (ran.has('ws')) {
    const w = results.ws;
    const prices = w?.prices?.large;
    const bare = w?.bare?.large;
    const problems: string[] = [];
    if (prices && prices.clientsOnLatestTick < prices.clients) problems.push(`${prices.clients - prices.clientsOnLatestTick} sessions not on the last tick`);
    rows.push(row(`tick -> last of ${prices?.clients ?? '?'} sessions p99`, p99(prices?.toLastReceipt), 'ms', `bare ws ${bare?.clients ?? '?'} p99`, p99(bare?.toLastReceipt), '<=', 1.5, null, problems));
    const quotes = w?.quotes;
    const missing = quotes ? [...(quotes.toFrame.missing > 0 ? [`${quotes.toFrame.missing} frames missing`] : []), ...(quotes.rest.failed > 0 ? [`${quotes.rest.failed} quotes failed`] : [])] : [];
    rows.push(row(`quote -> taker quoteUpdate p99 at ${quotes?.offeredRate ?? 500}/s`, quotes?.toFrame.p99, 'ms', 'bare insert p99, same rate', p99(quotes?.bareInsert.latency), '<=', 2.0, 20, missing));
  }
  return rows;
}

const fmt = (v: number, unit: GateRow['unit']) => (!Number.isFinite(v) ? '-' : unit === '/s' ? `${Math.round(v).toLocaleString('en-US')}/s` : `${v.toFixed(v >= 100 ? 0 : 1)} ms`);
const us = (v: number) => `${Math.round(v).toLocaleString('en-US')} us`;
const fmtRatio = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : '-');

export function printGate(rows: GateRow[]): string {
  const head = `${'figure'.padEnd(44)} ${'measured'.padStart(10)}  ${'same-run floor'.padEnd(40)} ${'ratio'.padStart(7)}  ${'target'.padEnd(9)} ${'quiet'.padEnd(15)} result`;
  const lines = [head, '-'.repeat(head.length + 4)];
  for (const r of rows) {
    const floor = `${r.floorLabel} ${fmt(r.floor, r.unit)}`;
    const verdict = r.pass ? 'PASS' : `MISS${r.problems.length ? ` (${r.problems.join('; ')})` : Number.isFinite(r.ratio) ? '' : ' (no figure)'}`;
    lines.push(`${r.figure.padEnd(44)} ${fmt(r.value, r.unit).padStart(10)}  ${floor.padEnd(40)} ${fmtRatio(r.ratio).padStart(7)}  ${`${r.direction} ${r.targetRatio.toFixed(1)}x`.padEnd(9)} ${(r.quietMaxMs === null ? '' : `<= ${r.quietMaxMs} ms ${r.quietPass ? 'ok' : 'over'}`).padEnd(15)} ${verdict}`);
  }
  const missed = rows.filter((r) => !r.pass).length;
  lines.push(`${rows.length - missed} of ${rows.length} targets met${missed ? `, ${missed} MISS` : ''}`);
  const ceilings = rows.filter((r) => r.ceiling !== null);
  if (ceilings.length > 0) {
    lines.push('CPU ceiling (every core busy with service + PostgreSQL + load generator at this run\'s CPU per request; only a cheaper request passes it):');
    for (const r of ceilings) {
      const c = r.ceiling!;
      const reach = c.ratio >= r.targetRatio ? 'within reach' : `out of reach at this CPU: ${r.targetRatio.toFixed(1)}x needs <= ${us(c.neededUs)} per request`;
      const floorCpu = c.floorPerReqUs === null ? '' : `; the floor itself ${us(c.floorPerReqUs)}`;
      lines.push(`  ${r.figure.padEnd(42)} ${us(c.perReqUs)}/request -> at most ${fmt(c.maxPerSec, '/s')} on ${c.cores} cores = ${fmtRatio(c.ratio)} of the floor (${reach}${floorCpu})`);
    }
  }
  const quiet = rows.filter((r) => r.quietPass !== null);
  if (quiet.length > 0) lines.push(`quiet-machine absolute targets: ${quiet.filter((r) => r.quietPass).length} of ${quiet.length} within (printed only; a quiet machine is their condition)`);
  return `${lines.join('\n')}\n`;
}
