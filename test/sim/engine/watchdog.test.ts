/**
 * The simulation's bound on every wait (sim/engine/watchdog.ts): a phase that outlasts its budget
 * fails the run with the phase named, instead of hanging it; a run that moves on does not; and a
 * whole run past its budget ends with a `stall` finding that says where, its log, and its stack closed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Stalled, Watchdog, within } from '../../../sim/engine/watchdog.ts';
import { runSeed } from '../../../sim/engine/run-seed.ts';
import { SimStack } from '../../../sim/engine/stack.ts';
import { backends } from '../../helpers/backends.ts';
import { elapse } from '../../helpers/eventually.ts';

describe('sim watchdog', () => {
  it('fails a run whose phase never ends, naming the phase', async () => {
    const watchdog = new Watchdog(1500);
    watchdog.enter('step 7: stuckCustody');
    const never = new Promise<void>(() => undefined);
    await assert.rejects(watchdog.guard(never), (error: unknown) => error instanceof Stalled && /^step 7: stuckCustody: no progress for \d+ s$/.test(error.message));
  });

  it('lets a run through whose phases each end within the budget, however long it is in all', async () => {
    const watchdog = new Watchdog(1500);
    const run = async () => {
      for (let step = 1; step <= 3; step++) {
        watchdog.enter(`step ${step}`);
        await elapse(900, 'a phase shorter than the budget');
      }
      return 'done';
    };
    assert.equal(await watchdog.guard(run()), 'done');
  });

  it('within: the value when in time, null when not', async () => {
    assert.deepEqual(await within(Promise.resolve(3), 100), { value: 3 });
    assert.equal(await within(new Promise<void>(() => undefined), 100), null);
  });

  // One store is enough for the simulator's own path (PostgreSQL when there: no PGlite migration to wait for).
  const backend = backends().includes('postgres') ? 'postgres' : 'pglite';
  it(`a run past its budget ends with a stall finding, its log, and its stack closed [${backend}]`, { timeout: 180_000 }, async () => {
    const result = await runSeed({ seed: 11, backend, steps: 1000, budgetMs: 3000 });
    assert.deepEqual(result.violations.map((v) => v.check), ['stall'], JSON.stringify(result.violations));
    const detail = result.violations[0]!.detail;
    assert.match(detail, /: the run's 3 s are up; last action (\{.*\}|null); node A \/readyz: 200 /);
    if (backend === 'pglite') assert.match(detail, /store: answers/);
    assert.ok(result.log.length > 0, 'the action log so far');
    // 12 steps can finish inside 3 s on PostgreSQL (the stall then comes in the end phase); 1,000 cannot.
    assert.ok(result.steps < 1000, `stopped at step ${result.steps}`);
  });

  // Seen in a clean-clone CI run: the abandoned run was restarting a node when the stack closed;
  // the node it started afterwards kept its listener open (the test file never exited) and had
  // its connections cut by the database's drop.
  it(`a stack closed while its run is restarting a node stops that node too, before the store goes [${backend}]`, { timeout: 180_000 }, async () => {
    const stack = await SimStack.start(backend, {});
    const url = stack.urlOf(0);
    await stack.stopNode(0);
    const restart = stack.startNode(0);
    const problems = await stack.close();
    assert.deepEqual(problems, []);
    // The restart began before the close: it ran, and the close stopped what it started.
    await restart;
    assert.equal(stack.isRunning(0), false);
    await assert.rejects(fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) }), 'nothing listens on the node\'s port');
    // A restart the run asks for once the stack is closing is refused.
    await assert.rejects(stack.startNode(0), /the stack is closing/);
    assert.equal(stack.isRunning(0), false);
  });
});
