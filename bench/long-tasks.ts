/**
 * The service's longest busy stretches in a V8 .cpuprofile (from `node bench/run.ts --cpu-prof`):
 * where the event loop was held, and by what. A p99 a few times its p50 on a quiet machine is
 * usually a request that waited behind one long stretch of JavaScript or a GC, which the
 * profile-wide summary (bench/profile-summary.ts) spreads too thin to see.
 *
 *   node bench/long-tasks.ts bench/results/<stamp>.cpuprofile [--min-ms 4] [--top 15] [--last <s>]
 *
 * A stretch is a run of consecutive samples none of which is `(idle)`; it may hold several
 * macrotasks back to back, which a waiting request waits for just the same. Each is printed with
 * its length, GC share, and the functions (self time) and outermost frames that filled it.
 */
import { readProfile, type CallFrame } from './lib/cpu-profile.ts';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { 'min-ms': { type: 'string', default: '4' }, top: { type: 'string', default: '15' }, last: { type: 'string' } },
  allowPositionals: true,
});
const file = positionals[0];
if (!file) {
  process.stderr.write('usage: node bench/long-tasks.ts <file.cpuprofile> [--min-ms 4] [--top 15] [--last <s>]\n');
  process.exit(2);
}
const profile = readProfile(file);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|src|bench|sim)\//, '$1/').replace(/^node:/, 'node:')}${f.url ? `:${f.lineNumber + 1}` : ''}`;
/** The frame just below the root that leads to a sample: what the event loop was running. */
function outermost(id: number): string {
  const chain: number[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) chain.push(at);
  // chain ends at (root); the frame under it, then the first frame with a URL of ours if any.
  const frames = chain.reverse().slice(1).map((i) => byId.get(i)!.callFrame);
  const ours = frames.find((f) => /\/(src|sim|bench)\//.test(f.url));
  return ours ? label(ours) : frames[0] ? label(frames[0]) : '(root)';
}

const from = values.last === undefined ? -Infinity : profile.endTime - Number(values.last) * 1e6;
interface Stretch { startUs: number; us: number; gcUs: number; self: Map<string, number>; outer: Map<string, number> }
const stretches: Stretch[] = [];
let current: Stretch | null = null;
let at = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  at += dt;
  if (at < from) continue;
  const node = byId.get(profile.samples[i]!)!;
  const name = node.callFrame.functionName;
  if (name === '(idle)') {
    if (current) stretches.push(current);
    current = null;
    continue;
  }
  current ??= { startUs: at, us: 0, gcUs: 0, self: new Map(), outer: new Map() };
  current.us += dt;
  if (name === '(garbage collector)') current.gcUs += dt;
  const self = label(node.callFrame);
  current.self.set(self, (current.self.get(self) ?? 0) + dt);
  const outer = outermost(node.id);
  current.outer.set(outer, (current.outer.get(outer) ?? 0) + dt);
}
if (current) stretches.push(current);

const minUs = Number(values['min-ms']) * 1000;
const long = stretches.filter((s) => s.us >= minUs).sort((a, b) => b.us - a.us);
const busyUs = stretches.reduce((a, s) => a + s.us, 0);
const spanS = (profile.endTime - Math.max(profile.startTime, from)) / 1e6;
process.stdout.write(`${stretches.length} busy stretches over ${spanS.toFixed(1)} s (busy ${(busyUs / 1e6).toFixed(2)} s); ${long.length} of at least ${values['min-ms']} ms\n`);
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `      ${(v / 1000).toFixed(1).padStart(6)} ms  ${k}`).join('\n');
for (const s of long.slice(0, Number(values.top))) {
  process.stdout.write(`\n${(s.us / 1000).toFixed(1)} ms at +${((s.startUs - profile.startTime) / 1e6).toFixed(2)} s (GC ${(s.gcUs / 1000).toFixed(1)} ms)\n    self:\n${top(s.self, 6)}\n    outermost of ours:\n${top(s.outer, 5)}\n`);
}
