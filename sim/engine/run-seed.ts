/**
 * One simulated run: a stack on `backend`, takers and makers from `seed`, `steps` actions and
 * faults each followed by every check, then the quiet end (all nodes up, the clock forward so
 * every deadline passes, every RFQ terminal) and the final checks: the full listings, and each
 * WebSocket's last balance snapshot equal to the REST balances. A run stops at the first step
 * that found a violation; its result carries the seed and the whole action log to replay it.
 */
import type { Backend } from '../../test/helpers/backends.ts';
import { SimStack } from './stack.ts';
import { Findings, type Violation } from './findings.ts';
import { Model } from './model.ts';
import { createActors, attempt } from './actors.ts';
import { Driver, type LoggedAction } from './driver.ts';
import { Checker } from './checks.ts';
import { settledLegs, type Token } from './model.ts';
import { PriceFeeds } from './prices.ts';
import { PHASE_BUDGET_MS, Stalled, Watchdog, within } from './watchdog.ts';

export interface RunOptions {
  seed: number;
  backend: Backend;
  steps: number;
  takers?: number;
  makers?: number;
  /** Print each action as it runs (a step-by-step replay). */
  verbose?: boolean;
  /** Settle on a real chain (anvil): on-chain deposits, permit2 relays, broadcast withdrawals, chain faults. */
  chain?: boolean;
  /** Trade perps too, executed at the venue simulator, with venue faults. */
  venue?: boolean;
  /**
   * Spot RFQs with `fill: "SWEEP"` too: parts quoted by several makers, some divisible, accepted
   * as a sweep or by naming quotes, each leg settled or failed on its own (choices drawn from a
   * stream of their own, so a run without sweeps is the run it always was).
   */
  sweeps?: boolean;
  /** The whole run's budget (ms): past it the run stops with a `stall` finding and its log (CI's test timeout is longer). */
  budgetMs?: number;
}

export interface RunResult {
  seed: number;
  backend: Backend;
  steps: number;
  counts: Record<string, number>;
  violations: Violation[];
  log: LoggedAction[];
  unstableReads: number;
  frames: number;
  /** `price` frames the takers received (also counted in `frames`). */
  priceFrames: number;
  ms: number;
  /** RFQs by kind and last status seen (e.g. `spot SETTLED`, `perp FAILED`, `spot sweep 2 of 2 legs SETTLED`). */
  outcomes: Record<string, number>;
  /** SWEEP RFQs that ended SETTLED with two legs or more settled. */
  multiLegSweepsSettled: number;
}

/** Short settlement headroom: a QUOTED RFQ nobody settles fails within seconds, inside the run. */
const SETTINGS = { settlementHeadroomSecs: 2, maxOpenRfqsPerAccount: 20 };
/**
 * On a chain a winner needs time to relay (a few steps) and the follower `SIM_CONFIRMATIONS`
 * blocks to book it; makers that let wins lapse are not suspended, so they keep quoting.
 */
const CHAIN_SETTINGS = { settlementHeadroomSecs: 15, maxOpenRfqsPerAccount: 20, makerFailureThreshold: 1000 };
/** Opening deposits per taker on a chain (human units). */
const OPENING: Array<[Token, string]> = [['USDC', '200000'], ['ETH', '40'], ['BTC', '2']];
const TERMINAL = new Set(['SETTLED', 'FAILED', 'CANCELLED']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function runSeed(options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const findings = new Findings();
  const model = new Model();
  const starting = SimStack.start(options.backend, options.chain ? CHAIN_SETTINGS : SETTINGS, { chain: options.chain ?? false, venue: options.venue ?? false, seed: options.seed });
  // Bounded too (anvil, the contracts, the store, the nodes): a set-up that never ends is an error, not a wait.
  const up = await within(starting, PHASE_BUDGET_MS);
  if (!up) {
    void starting.then((stack) => stack.close()).catch(() => undefined);
    throw new Error(`seed ${options.seed} on ${options.backend}: the stack did not start within ${PHASE_BUDGET_MS / 1000} s`);
  }
  const stack = up.value;
  let actors: Awaited<ReturnType<typeof createActors>>;
  try {
    actors = await new Watchdog().guard(createActors(stack, options.seed, findings, { takers: options.takers ?? 3, makers: options.makers ?? 2 }));
  } catch (error) {
    await stack.close();
    throw error;
  }
  const driver = new Driver(options.seed, stack, model, findings, actors, options.verbose ?? false, options.steps, options.sweeps ?? false);
  const checker = new Checker(stack, model, findings, actors);
  const prices = new PriceFeeds(stack, findings);
  driver.prices = prices;
  const watchdog = new Watchdog(PHASE_BUDGET_MS, options.budgetMs);
  driver.watchdog = watchdog;
  // The run's own phases (not each step's) are printed in a verbose run, with the time since its start.
  const phase = (name: string) => {
    watchdog.enter(name);
    if (options.verbose) console.log(`phase: ${name} ${watchdog.elapsed}`);
  };
  const run = async () => {
    phase('connecting the price feeds');
    await prices.connect(actors);
    const takers = actors.filter((a) => a.role === 'taker');
    phase('opening deposits');
    if (stack.chain) {
      await driver.depositOnChain(takers.flatMap((taker) => OPENING.map(([token, amount]): [typeof taker, Token, string] => [taker, token, amount])));
      await checker.depositsCredited(90_000);
    } else {
      for (const taker of takers) for (const [token, amount] of OPENING) await driver.fund(taker, token, amount, 'sim opening balance');
    }
    while (driver.step < options.steps && findings.list.length === 0) {
      await driver.next();
      findings.step = driver.step;
      watchdog.enter(`step ${driver.step}: the checks`);
      await checker.afterStep();
    }
    if (findings.list.length === 0) {
      findings.step = driver.step + 1;
      phase('end: every node up');
      await driver.allUp();
      // Forward to the edge of the skew: every auction and settlement deadline comes due.
      stack.clock.offsetMs = 20_000;
      phase('end: every RFQ terminal');
      const deadline = Date.now() + 60_000;
      for (const rfq of model.rfqs.values()) {
        const taker = actors.find((a) => a.name === rfq.taker)!;
        for (;;) {
          const read = await attempt(() => taker.client.getRfq(rfq.id), findings, 'getRfq');
          if (read.ok && TERMINAL.has(read.value.status)) break;
          if (Date.now() > deadline) {
            findings.add('stuck', `${rfq.id} still ${read.ok ? read.value.status : read.code} a minute after every deadline`);
            break;
          }
          await sleep(200);
        }
      }
      if (stack.chain) {
        // Wins held back are settled late now (the chain is past every deadline), then the
        // operator resolves what a cancel left UNRESOLVED, and custody's own transfers finish.
        phase('end: held wins settled late');
        await driver.settleLate(true);
        phase('end: deposits credited');
        await checker.depositsCredited(60_000);
        phase('end: withdrawals at rest');
        await checker.withdrawalsAtRest(60_000);
        phase('end: UNRESOLVED withdrawals resolved');
        await driver.resolveStuck(60_000);
        phase('end: custody at rest');
        await checker.custodyAtRest(60_000);
        await driver.recordStuckOutcomes();
      }
      phase('end: final checks');
      await checker.final();
      phase('end: prices converge');
      const converged = await prices.converged(actors, 10_000);
      if (options.verbose) console.log(`prices at the end: ${converged}`);
      phase('end: payouts, the chain, the venue');
      if (stack.chain) {
        await checker.payoutsOnce();
        await checker.onChain();
      }
      if (stack.venue) {
        // The fault rules still pending would fail the venue reads of the check itself.
        await stack.venue.control.clearFaults();
        await checker.venuePositions();
      }
      phase('end: last balance snapshots');
      await lastSnapshots(stack, actors, findings);
    }
  };
  // After a stall, what the abandoned run still does against the closing stack is not a finding.
  let stalledAt: { findings: number; log: number; step: number } | null = null;
  try {
    await watchdog.guard(run());
  } catch (error) {
    if (error instanceof Stalled) {
      // The run is abandoned where it waits: the finding names the step and the wait, and what the stack answers.
      const at = { findings: findings.list.length, log: driver.log.length, step: driver.step, last: driver.log.at(-1) ?? null };
      const state = await stack.diagnose();
      findings.list.splice(at.findings);
      findings.step = at.step;
      findings.add('stall', `${error.message}; last action ${JSON.stringify(at.last)}; ${state}`);
      stalledAt = { findings: findings.list.length, log: at.log, step: at.step };
    } else {
      // A request that failed outright (no HTTP answer) or a driver fault: reported with the log.
      findings.add('exception', error instanceof Error ? (error.stack ?? error.message) : String(error));
    }
  } finally {
    prices.close();
    for (const actor of actors) actor.watch.close();
    const problems = await stack.close();
    if (stalledAt) {
      findings.list.splice(stalledAt.findings);
      driver.log.splice(stalledAt.log);
    }
    for (const problem of problems) findings.add('stall', `at the end of the run: ${problem}`);
  }
  return {
    seed: options.seed,
    backend: options.backend,
    steps: stalledAt?.step ?? driver.step,
    counts: driver.counts,
    violations: findings.list,
    log: driver.log,
    unstableReads: checker.unstableReads,
    frames: actors.reduce((n, a) => n + a.watch.frames, 0),
    priceFrames: prices.frames,
    ms: performance.now() - started,
    outcomes: [...model.rfqs.values()].reduce<Record<string, number>>((o, r) => {
      // A settled spot trade names its mode (permit2, promised, xchange); a sweep its legs settled of those selected.
      const mode = r.settled && !r.instrument.perp ? ` ${model.quotes.get(r.settled.quoteId)?.mode ?? '?'}` : '';
      const legs = r.sweep ? ` sweep${r.sweep.legs.size > 0 ? ` ${settledLegs(r).length} of ${r.sweep.legs.size} legs` : ''}` : '';
      const key = `${r.instrument.perp ? 'perp' : 'spot'}${mode}${legs} ${r.status}`;
      o[key] = (o[key] ?? 0) + 1;
      return o;
    }, {}),
    multiLegSweepsSettled: [...model.rfqs.values()].filter((r) => r.status === 'SETTLED' && settledLegs(r).length >= 2).length,
  };
}

/** Each session's last balance snapshot comes to equal the REST balances (frames follow commits). */
async function lastSnapshots(stack: SimStack, actors: Awaited<ReturnType<typeof createActors>>, findings: Findings): Promise<void> {
  const shape = (rows: Array<{ token: string; available: string; locked: string }> | null) =>
    JSON.stringify((rows ?? []).map((b) => [b.token, b.available, b.locked]).sort());
  for (const actor of actors) {
    const rest = await attempt(() => actor.client.balances(), findings, 'balances');
    if (!rest.ok) continue;
    const want = shape(rest.value.balances);
    const until = Date.now() + 5000;
    while (shape(actor.watch.lastBalances) !== want && Date.now() < until) await sleep(100);
    // A user with no balance change has had no snapshot pushed beyond the empty baseline.
    if (shape(actor.watch.lastBalances) !== want && rest.value.balances.length > 0) {
      const committed = await stack.committedSeqs(actor.address).then((seqs) => JSON.stringify(seqs), (error: unknown) => `unread (${String(error)})`);
      findings.add('wsBalances', `${actor.name} (node ${actor.node}; ${actor.watch.describe()}; committed seq ${committed}): last snapshot ${shape(actor.watch.lastBalances)}, REST ${want}`);
    }
  }
}
