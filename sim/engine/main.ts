/**
 * `npm run sim -- --seeds N --from S [--steps K] [--backend pglite|postgres|both] [--chain] [--venue] [--seed S --verbose]`
 * Runs seeds S..S+N-1, prints a progress line per seed and a summary (seeds, steps, actions and
 * faults per kind, violations). A failing seed prints its violations and its full action log, and
 * the command exits 1; `--seed S --verbose` replays one seed printing each action as it runs.
 */
import { parseArgs } from 'node:util';
import { writeFile } from 'node:fs/promises';
import type { Backend } from '../../test/helpers/backends.ts';
import { runSeed, type RunResult } from './run-seed.ts';

const { values } = parseArgs({
  allowNegative: true,
  options: {
    seeds: { type: 'string', default: '1' },
    from: { type: 'string', default: '1' },
    seed: { type: 'string' },
    steps: { type: 'string', default: '60' },
    backend: { type: 'string', default: process.env.TEST_DATABASE_URL ? 'both' : 'pglite' },
    verbose: { type: 'boolean', default: false },
    chain: { type: 'boolean', default: false },
    venue: { type: 'boolean', default: false },
    // Sweep RFQs are on unless `--no-sweeps` (the CI entries without them keep their meaning).
    sweeps: { type: 'boolean', default: true },
    'max-minutes': { type: 'string' },
    'summary-file': { type: 'string' },
  },
});

const from = Number(values.seed ?? values.from);
const count = values.seed ? 1 : Number(values.seeds);
const steps = Number(values.steps);
const backends: Backend[] = values.backend === 'both' ? ['pglite', 'postgres'] : [values.backend as Backend];
if (backends.includes('postgres') && !process.env.TEST_DATABASE_URL) throw new Error('--backend postgres needs TEST_DATABASE_URL');
const stopAt = values['max-minutes'] ? Date.now() + Number(values['max-minutes']) * 60_000 : Infinity;

const totals = { seeds: 0, steps: 0, multiLegSweepsSettled: 0, violations: 0, frames: 0, priceFrames: 0, unstableReads: 0, failedSeeds: [] as string[] };
const kinds: Record<string, number> = {};
const outcomes: Record<string, number> = {};
const started = Date.now();
outer: for (let seed = from; seed < from + count; seed++) {
  for (const backend of backends) {
    if (Date.now() > stopAt) break outer;
    const result: RunResult = await runSeed({ seed, backend, steps, verbose: values.verbose, chain: values.chain, venue: values.venue, sweeps: values.sweeps });
    totals.seeds++;
    totals.steps += result.steps;
    totals.multiLegSweepsSettled += result.multiLegSweepsSettled;
    totals.frames += result.frames;
    totals.priceFrames += result.priceFrames;
    totals.unstableReads += result.unstableReads;
    totals.violations += result.violations.length;
    for (const [kind, n] of Object.entries(result.counts)) kinds[kind] = (kinds[kind] ?? 0) + n;
    for (const [kind, n] of Object.entries(result.outcomes)) outcomes[kind] = (outcomes[kind] ?? 0) + n;
    const elapsed = ((Date.now() - started) / 1000).toFixed(0);
    console.log(`[${elapsed}s] seed ${seed} ${backend}: ${result.steps} steps, ${result.frames} frames, ${result.violations.length} violations, ${result.multiLegSweepsSettled} sweeps settled on 2+ legs (${(result.ms / 1000).toFixed(1)} s) ${JSON.stringify(result.outcomes)} | total ${totals.seeds} runs, ${totals.steps} steps, ${totals.violations} violations`);
    if (result.violations.length > 0) {
      totals.failedSeeds.push(`${seed}/${backend}`);
      console.log(`FAILED seed ${seed} on ${backend}; replay: npm run sim -- --seed ${seed} --backend ${backend} --steps ${steps}${values.chain ? ' --chain' : ''}${values.venue ? ' --venue' : ''}${values.sweeps ? '' : ' --no-sweeps'} --verbose`);
      for (const v of result.violations) console.log(`  violation at step ${v.step}: ${v.check}: ${v.detail}`);
      console.log('  action log:');
      for (const entry of result.log) console.log(`    ${JSON.stringify(entry)}`);
    }
  }
}
const summary = { ...totals, minutes: Number(((Date.now() - started) / 60_000).toFixed(1)), rfqOutcomes: outcomes, actionsAndFaults: kinds };
console.log(`summary: ${JSON.stringify(summary)}`);
if (values['summary-file']) await writeFile(values['summary-file'], `${JSON.stringify(summary, null, 2)}\n`);
// Exits even if a stalled run left something of its stack behind (see watchdog.ts).
process.exit(totals.violations > 0 ? 1 : 0);
