/**
 * The SIGKILL test of the embedded stack (test/runtime/embedded-sigkill.test.ts) over many seeds:
 * `node scripts/sigkill-soak.ts [--seeds 1-30] [--rounds 1] [--per-run 3] [--minutes 15]`. CI runs
 * a few seeds; this runs as many as asked, `--per-run` seeds per `node --test` child (one stack,
 * one first start, shared by those seeds), and starts no new child once `--minutes` have passed.
 * It prints a line per child with the seeds and rounds it covered, then the failing seed (the
 * round in progress when a child failed, from the test's `# seed N round R` lines); exit 1 if any.
 * Each child runs in its own process group, killed as a group if it hangs.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1-30' },
    rounds: { type: 'string', default: '1' },
    'per-run': { type: 'string', default: '3' },
    minutes: { type: 'string', default: '15' },
    timeout: { type: 'string', default: '900' },
  },
});
const [from, to] = values.seeds.includes('-') ? values.seeds.split('-').map(Number) as [number, number] : [Number(values.seeds), Number(values.seeds)];
const perRun = Number(values['per-run']);
const budgetEnds = Date.now() + Number(values.minutes) * 60_000;
const node = path.resolve('node_modules/.bin/node');
const failures: string[] = [];
let passedRounds = 0;
let lastSeed = from - 1;

for (let first = from; first <= to && Date.now() < budgetEnds; first += perRun) {
  const last = Math.min(to, first + perRun - 1);
  const startedAt = Date.now();
  const child = spawn(node, ['--test', 'test/runtime/embedded-sigkill.test.ts'], {
    env: { ...process.env, RFQ_SIGKILL_SEEDS: `${first}-${last}`, RFQ_SIGKILL_ROUNDS: values.rounds },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), Number(values.timeout) * 1000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  const secs = ((Date.now() - startedAt) / 1000).toFixed(0);
  const resumed = [...output.matchAll(/^# seed (\d+) round (\d+) resumed/gm)];
  const killed = [...output.matchAll(/^# seed (\d+) round (\d+): killed/gm)];
  lastSeed = last;
  if (code === 0) {
    passedRounds += resumed.length;
    process.stdout.write(`seeds ${first}-${last}: ok, ${resumed.length} rounds in ${secs} s\n`);
  } else {
    passedRounds += resumed.length;
    const at = killed.at(-1);
    const where = at ? `seed ${at[1]} round ${at[2]}` : 'before the first kill';
    failures.push(where);
    process.stdout.write(`seeds ${first}-${last}: FAILED (exit ${code}) at ${where} after ${resumed.length} good rounds, in ${secs} s\n${output.split('\n').filter((l) => /^# |✖|Error|assert/i.test(l)).slice(0, 40).join('\n')}\n`);
  }
}
const covered = lastSeed >= from ? `seeds ${from}-${lastSeed}` : 'no seed';
process.stdout.write(failures.length === 0 ? `${covered}: all passed (${passedRounds} rounds)\n` : `${covered}: ${passedRounds} rounds passed; failed at ${failures.join('; ')}\n`);
process.exit(failures.length === 0 ? 0 : 1);
