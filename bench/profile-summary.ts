/**
 * Summarises a V8 .cpuprofile (from `node bench/run.ts --cpu-prof`): self time by area
 * (package or source directory) and the top functions.
 *
 *   node bench/profile-summary.ts bench/results/<stamp>.cpuprofile [--top 30] [--last <s>]
 *
 * `--last <s>` keeps only the samples of the profile's last s seconds: the profile covers the
 * service's whole life (start-up, sign-ins, first quotes), and the phase of interest ends it.
 */
import { readProfile, type CallFrame } from './lib/cpu-profile.ts';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '30' }, last: { type: 'string' } }, allowPositionals: true });
const file = positionals[0];
if (!file) {
  process.stderr.write('usage: node bench/profile-summary.ts <file.cpuprofile> [--top N]\n');
  process.exit(2);
}
const profile = readProfile(file);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
// Sample i was taken at startTime + the sum of timeDeltas[0..i].
const sampledAt: number[] = [];
for (let i = 0, at = profile.startTime; i < profile.samples.length; i++) sampledAt.push((at += profile.timeDeltas[i] ?? 0));
const from = values.last === undefined ? -Infinity : profile.endTime - Number(values.last) * 1e6;
const inWindow = (i: number) => sampledAt[i]! >= from;
const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  if (!inWindow(i)) continue;
  const id = profile.samples[i]!;
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}

function area(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8/native (program)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `pkg ${nm[1]}`;
  const src = /\/(src\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  if (src) return src[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  return url.replace(/^file:\/\//, '');
}

const areas = new Map<string, number>();
const functions = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const node = byId.get(id)!;
  total += us;
  const a = area(node.callFrame);
  areas.set(a, (areas.get(a) ?? 0) + us);
  const key = `${node.callFrame.functionName || '(anonymous)'}  ${node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/main\//, '')}:${node.callFrame.lineNumber + 1}`;
  functions.set(key, (functions.get(key) ?? 0) + us);
}
const idle = areas.get('idle') ?? 0;
const busy = total - idle;
const top = Number(values.top);
const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
process.stdout.write(`profile ${file}${values.last === undefined ? '' : ` (last ${values.last} s)`}: ${(total / 1e6).toFixed(1)} s sampled, busy ${(busy / 1e6).toFixed(1)} s (percentages are of busy time)\n\nself time by area:\n`);
for (const [a, us] of [...areas].filter(([a]) => a !== 'idle').sort((x, y) => y[1] - x[1]).slice(0, top)) {
  process.stdout.write(`  ${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${a}\n`);
}
// Inclusive time of a few groups: a sample counts for a group when any frame on its stack matches.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const groups: Array<[string, RegExp]> = [
  ['socket write syscalls (incl. time preempted in them)', /^(writev|writeBuffer|writeUtf8String) /],
  ['signed-request auth (HMAC, credential cache, replay claims)', /^authenticateRequest /],
  ['submitQuote use case (incl. its SQL building and pg calls)', /^submitQuote /],
  ['kysely (query building and compiling)', /node_modules\/kysely\//],
  ['pg driver (protocol, result parsing)', /node_modules\/pg(-protocol|-pool|-types)?\//],
  ['fastify core', /node_modules\/fastify\//],
  ['request validation (ajv)', /node_modules\/ajv\//],
  ['response serialization (fast-json-stringify)', /node_modules\/fast-json-stringify\//],
  ['metrics (prom-client)', /node_modules\/prom-client\//],
  ['pino logging', /node_modules\/pino/],
  ['garbage collector', /^\(garbage collector\)/],
  ['benchmark probe (bench/lib/service-probe.ts)', /service-probe\.ts/],
];
const inclusive = new Map<string, number>();
for (let i = 0; i < profile.samples.length; i++) {
  if (!inWindow(i)) continue;
  const hit = new Set<string>();
  let id: number | undefined = profile.samples[i]!;
  while (id !== undefined) {
    const frame = byId.get(id)!.callFrame;
    const text = `${frame.functionName} ${frame.url}`;
    for (const [name, re] of groups) if (re.test(text)) hit.add(name);
    id = parent.get(id);
  }
  for (const name of hit) inclusive.set(name, (inclusive.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
process.stdout.write('\ninclusive time of selected groups (a sample can count in several):\n');
for (const [name] of groups) process.stdout.write(`  ${pct(inclusive.get(name) ?? 0)}  ${((inclusive.get(name) ?? 0) / 1000).toFixed(0).padStart(7)} ms  ${name}\n`);
process.stdout.write('\ntop functions by self time:\n');
for (const [f, us] of [...functions].filter(([f]) => !f.startsWith('(idle)')).sort((x, y) => y[1] - x[1]).slice(0, top)) {
  process.stdout.write(`  ${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${f}\n`);
}
