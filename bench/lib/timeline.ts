/**
 * `--timeline` (where the re-quote p99 at 1,000/s comes from): every
 * open-loop request's latency stamped with its scheduled wall-clock time (the generator), beside
 * what the service recorded on the same clock (bench/lib/service-probe.ts, when
 * BENCH_TIMELINE_FILE is set): each HTTP request's time inside the service, each quote write's
 * time in the quote writer (queue plus call), each `rfq_write_quotes` call with its batch size,
 * every GC pause and every statement slower than 4 ms. The summary splits the last 1,000/s
 * open-loop phase's latency into those parts and lists the service's slow events in it, so a
 * tail can be told apart: queueing behind the batch in flight, a slow call, a pause, or time
 * outside the service. Off unless asked for: the service-side hooks add two clock reads, a
 * listener and an array entry per request (not measured apart), and the files hold every request.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { summarize, type LatencySummary } from './stats.ts';

/** [kind, wall-clock start (ms since the epoch), duration (ms), label]. */
export type TimelineEntry = [kind: 'request' | 'write' | 'batch' | 'gc' | 'statement', at: number, ms: number, label: string];

/** [scheduled wall-clock send time (ms since the epoch), latency from it (ms), offered rate]. */
export type ClientSample = [at: number, ms: number, rate: number];

let client: ClientSample[] | null = null;

export function enableClientTimeline(): void {
  client ??= [];
}

/** Called by the open-loop generator for each 2xx answer (a no-op unless enabled). */
export function recordClientSample(scheduled: number, latencyMs: number, rate: number): void {
  client?.push([performance.timeOrigin + scheduled, latencyMs, rate]);
}

export function writeClientTimeline(file: string): void {
  writeFileSync(file, JSON.stringify(client ?? []));
}

/** The summary of the last open-loop phase at `rate` (runs of samples at one rate, split at gaps of a second). */
export function summarizeTimeline(clientFile: string, serviceFile: string, rate = 1000): string {
  const samples = JSON.parse(readFileSync(clientFile, 'utf8')) as ClientSample[];
  const service = JSON.parse(readFileSync(serviceFile, 'utf8')) as TimelineEntry[];
  const runs: ClientSample[][] = [];
  for (const s of samples) {
    const run = runs.at(-1);
    const last = run?.at(-1);
    if (run && last && last[2] === s[2] && s[0] - last[0] < 1000) run.push(s);
    else runs.push([s]);
  }
  const phase = runs.filter((r) => r[0]![2] === rate).at(-1);
  if (!phase) return `timeline: no open-loop phase at ${rate}/s\n`;
  const from = phase[0]![0];
  const to = phase.at(-1)![0] + 100;
  const inPhase = service.filter((e) => e[1] >= from && e[1] <= to);
  const of = (kind: TimelineEntry[0], filter: (e: TimelineEntry) => boolean = () => true) => inPhase.filter((e) => e[0] === kind && filter(e));
  const line = (name: string, d: LatencySummary, unit = 'ms') =>
    `  ${name.padEnd(47)} n=${String(d.count).padStart(6)}  p50 ${d.p50.toFixed(2).padStart(6)}  p90 ${d.p90.toFixed(2).padStart(6)}  p99 ${d.p99.toFixed(2).padStart(6)}  max ${d.max.toFixed(1).padStart(6)} ${unit}`;
  const batches = of('batch');
  const gcs = of('gc');
  // An answer was in flight during a pause when [scheduled send, answer] overlaps [start, end].
  const overlapsGc = (s: ClientSample) => gcs.some((g) => g[1] <= s[0] + s[1] && s[0] <= g[1] + g[2]);
  const cutoff = summarize(phase.map((s) => s[1])).p99;
  const slowest = phase.filter((s) => s[1] >= cutoff);
  const out = [
    `timeline of the last open-loop phase at ${rate}/s (${phase.length} answers over ${((to - from) / 1000).toFixed(1)} s):`,
    line('client: scheduled send -> answer', summarize(phase.map((s) => s[1]))),
    line('service: request -> response finished (quotes)', summarize(of('request', (e) => e[3].includes('/quotes')).map((e) => e[2]))),
    line('quote writer: write -> outcome (queue + call)', summarize(of('write').map((e) => e[2]))),
    line('rfq_write_quotes call', summarize(batches.map((e) => e[2]))),
    line('rfq_write_quotes batch size', summarize(batches.map((e) => Number(e[3]))), 'quotes'),
    `  GC pauses: ${gcs.length}, ${gcs.reduce((t, e) => t + e[2], 0).toFixed(1)} ms in all, largest ${Math.max(0, ...gcs.map((e) => e[2])).toFixed(1)} ms`,
    `  the slowest 1% (${slowest.length} answers): ${slowest.filter(overlapsGc).length} were in flight during a GC pause (${phase.filter(overlapsGc).length} of all ${phase.length})`,
    '  slow events (statements over 8 ms, GC pauses over 4 ms), ms from the phase start:',
  ];
  const slow = inPhase.filter((e) => (e[0] === 'statement' && e[2] > 8) || (e[0] === 'gc' && e[2] > 4)).sort((a, b) => a[1] - b[1]);
  for (const e of slow.slice(0, 40)) out.push(`    ${(e[1] - from).toFixed(0).padStart(6)}  ${e[0].padEnd(9)} ${e[2].toFixed(1).padStart(6)} ms  ${e[3].slice(0, 70)}`);
  if (slow.length > 40) out.push(`    ... ${slow.length - 40} more`);
  return `${out.join('\n')}\n`;
}

if (import.meta.main) {
  const [clientFile, serviceFile, rate] = process.argv.slice(2);
  if (!clientFile || !serviceFile) {
    process.stderr.write('usage: node bench/lib/timeline.ts <client.json> <service.json> [rate]\n');
    process.exit(2);
  }
  process.stdout.write(summarizeTimeline(clientFile, serviceFile, rate ? Number(rate) : 1000));
}
