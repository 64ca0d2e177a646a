/**
 * The SIGKILL test of the embedded stack (test/runtime/embedded-sigkill.test.ts) over many seeds,
 * one at a time: `node scripts/sigkill-soak.ts [--seeds 1-20] [--rounds 4]`. CI runs a few seeds;
 * this runs as many as asked and prints a line per seed, then the failing seeds (exit 1 if any).
 * Each run is a `node --test` child in its own process group, killed as a group if it hangs.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { seeds: { type: 'string', default: '1-10' }, rounds: { type: 'string', default: '4' }, timeout: { type: 'string', default: '900' } } });
const [from, to] = values.seeds.includes('-') ? values.seeds.split('-').map(Number) as [number, number] : [Number(values.seeds), Number(values.seeds)];
const node = path.resolve('node_modules/.bin/node');
const failed: number[] = [];

for (let seed = from; seed <= to; seed++) {
  const startedAt = Date.now();
  const child = spawn(node, ['--test', 'test/runtime/embedded-sigkill.test.ts'], {
    env: { ...process.env, RFQ_SIGKILL_SEED: String(seed), RFQ_SIGKILL_ROUNDS: values.rounds },
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
  if (code === 0) {
    process.stdout.write(`seed ${seed}: ok in ${secs} s\n`);
  } else {
    failed.push(seed);
    process.stdout.write(`seed ${seed}: FAILED (exit ${code}) in ${secs} s\n${output.split('\n').filter((l) => /^# |✖|Error|assert/i.test(l)).slice(0, 40).join('\n')}\n`);
  }
}
process.stdout.write(failed.length === 0 ? `all seeds ${from}-${to} passed\n` : `failed seeds: ${failed.join(', ')}\n`);
process.exit(failed.length === 0 ? 0 : 1);
