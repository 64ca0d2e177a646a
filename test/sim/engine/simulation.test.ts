/**
 * The seeded simulation (sim/engine) in CI: a fixed small set of seeds on each database, each run
 * checked after every step (invariants, model, state tables, WebSocket seq, no 500), expected to
 * find nothing; and a check that the checks bite: money moved behind the model's back (an
 * operator adjustment the driver never made) is reported as unacknowledged.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { runSeed } from '../../../sim/engine/run-seed.ts';
import { SimStack } from '../../../sim/engine/stack.ts';
import { Findings, type Violation } from '../../../sim/engine/findings.ts';
import { Model } from '../../../sim/engine/model.ts';
import { createActors } from '../../../sim/engine/actors.ts';
import { Driver } from '../../../sim/engine/driver.ts';
import { Checker } from '../../../sim/engine/checks.ts';

/** Kept small: the whole suite must stay under 30 minutes (one PGlite migration, then ~20-30 s per seed here). */
const SEEDS = [11, 12];
const STEPS = 12;

for (const backend of backends()) {
  describe(`seeded simulation [${backend}]`, () => {
    for (const seed of SEEDS) {
      it(`seed ${seed}: ${STEPS} steps with faults, no violation`, { timeout: 240_000 }, async () => {
        const result = await runSeed({ seed, backend, steps: STEPS });
        const replay = `replay: npm run sim -- --seed ${seed} --backend ${backend} --steps ${STEPS} --verbose\n${result.log.map((e) => JSON.stringify(e)).join('\n')}`;
        assert.deepEqual(result.violations, [], replay);
        assert.equal(result.steps, STEPS);
        assert.ok(result.frames > 0, 'the WebSocket sessions received frames');
      });
    }

    it('reports money that moved without an acknowledged action', { timeout: 240_000 }, async () => {
      const stack = await SimStack.start(backend, { settlementHeadroomSecs: 2 });
      const findings = new Findings();
      const model = new Model();
      const actors = await createActors(stack, 7, findings, { takers: 1, makers: 1 });
      try {
        const driver = new Driver(7, stack, model, findings, actors, false);
        const checker = new Checker(stack, model, findings, actors);
        const taker = actors[0]!;
        await driver.fund(taker, 'USDC', '1000', 'acknowledged');
        await checker.afterStep();
        assert.deepEqual(findings.list, []);
        await stack.admin.adjustBalance({ address: taker.address, token: 'USDC', amount: '5', memo: 'behind the model' });
        await checker.afterStep();
        const found: Violation[] = findings.list;
        assert.deepEqual(found.map((v) => [v.check, v.detail]), [['modelTotal', 'T0 USDC: total 1005000000, acknowledged 1000000000 (raw)']]);
      } finally {
        for (const actor of actors) actor.watch.close();
        await stack.close();
      }
    });
  });
}
