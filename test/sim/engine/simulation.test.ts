/**
 * The seeded simulation (sim/engine) in CI: a fixed small set of seeds on the databases (two of
 * them settling on a real chain in every spot mode, one with a venue simulator, with their faults), each run checked after every step (invariants, model, state tables, WebSocket seq, no 500), expected to
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
import { PriceFeeds } from '../../../sim/engine/prices.ts';
import { Prng } from '../../../sim/engine/prng.ts';
import { PriceIngestClient } from '../../../src/client/price-ingest.ts';
import { eventually, waitFor } from '../../helpers/eventually.ts';

/**
 * Kept small: the whole suite must stay under 30 minutes (one PGlite migration, then ~20-30 s per
 * seed without a chain, ~40-80 s with a chain when the machine is quiet: anvil, the contracts,
 * opening deposits on chain; several times that under load). Seed 105 with a chain and a venue
 * settled an xchange trade and a perp in the runs that chose it; seed 43 on a chain settled in
 * promised and xchange modes (and permit2 in one run of three), with a late relay and stuck
 * custody transactions both bumped and cancelled (outcomes depend on timing; the checks do not).
 * The set has 3 minutes (and two runs with sweeps, about 25 and 60 s): seeds 11 and 105 (chain and venue: the perp path) on both
 * databases. Seed 43 once went past its 420 s on PGlite in a full run and never did again in 22
 * replays; every wait of a run is bounded now (sim/engine/watchdog.ts), so a run that
 * stalls fails within its budget with its findings and log. It stays out of the CI set, which
 * keeps 105 on both stores instead: `npm run sim -- --seed 43 --chain --steps 50` runs it.
 */
const RUNS = [
  { seed: 11, steps: 12, chain: false, venue: false, on: 'both' },
  { seed: 105, steps: 40, chain: true, venue: true, on: 'both' },
  // Its end check once found the taker's last balances frame stale (a lock released while another
  // transaction changed another token: test/services/balance-frames.test.ts is the exact case).
  { seed: 5017, steps: 60, chain: false, venue: false, on: 'postgres' },
  // A taker's session lost its node before any quotes frame and resumed with no `fromSeq`, so it
  // was sent a baseline instead of the replay (the client now resumes from the ack's seq:
  // test/client/ws-session.test.ts is the exact case).
  { seed: 6008, steps: 12, chain: false, venue: false, on: 'postgres' },
  // Sweeps on (their own Prng stream: the entries above are the runs they always were). Seed 7
  // found an autoAccept sweep accepted by its taker keeping its bound locked beside its legs'
  // locks (test/api/v1/sweep-fill.test.ts is the exact case). The run on a chain with sweeps is
  // SWEEP_RUN below, under a title of its own.
  { seed: 7, steps: 60, chain: false, venue: false, on: 'postgres', sweeps: true },
] as const;
/**
 * Seed 3 on a chain with sweeps settled a sweep in every run seen (45-80 s on PGlite), on two legs
 * (permit2 and promised makers) in three of five: which sweeps are selected in time to settle
 * depends on timing (auction windows against steps), so the run asserts a settled sweep and
 * reports its multi-leg count rather than requiring one.
 */
const SWEEP_RUN = { seed: 3, steps: 60, chain: true, venue: false, on: 'pglite', sweeps: true } as const;

/**
 * Perp sweeps at the venue simulator with its faults (a maker's order refused mid-sweep, nonces
 * burnt, the exchange down, a partial fill, a reply lost): every acknowledged sweep accept leads
 * its legs or was refused whole, each SETTLED leg holds a share of the taker's fill, and the
 * venue's positions are the legs' shares. Asserts a perp sweep executed (legs selected and their
 * orders sent); whether its legs settle depends on the faults' timing (seed 37, about 15 s, has
 * settled both legs in some runs and failed both in others). Its first runs (seed 38)
 * found a perp sweep failed by the settlement expiry while its taker order was at the venue
 * (test/api/v1/perp-sweep.test.ts is the exact case).
 */
const PERP_SWEEP_RUN = { seed: 37, steps: 60, chain: false, venue: true, on: 'postgres', sweeps: true } as const;

/** One run of the simulation, with no violation; what it found is printed with its replay command. */
async function cleanRun(backend: Parameters<typeof runSeed>[0]['backend'], run: { seed: number; steps: number; chain: boolean; venue: boolean; sweeps?: boolean }) {
  const { seed, steps, chain, venue } = run;
  const sweeps = run.sweeps ?? false;
  // Its own budget inside the test's timeout: a run that stalls fails with its findings and log (sim/engine/watchdog.ts).
  const result = await runSeed({ seed, backend, steps, chain, venue, sweeps, budgetMs: RUN_BUDGET_MS });
  const replay = `replay: npm run sim -- --seed ${seed} --backend ${backend} --steps ${steps}${chain ? ' --chain' : ''}${venue ? ' --venue' : ''}${sweeps ? '' : ' --no-sweeps'} --verbose\n${result.log.map((e) => JSON.stringify(e)).join('\n')}`;
  assert.deepEqual(result.violations, [], replay);
  assert.equal(result.steps, steps);
  assert.ok(result.frames > 0, 'the WebSocket sessions received frames');
  return { result, replay };
}
const available: readonly string[] = backends();
/** A run's budget, twice the slowest run seen under load: with the bounded close of a stalled stack (one node that will not stop: 60 s) it ends within the 420 s timeout. */
const RUN_BUDGET_MS = 300_000;

for (const backend of backends()) {
  describe(`seeded simulation [${backend}]`, () => {
    for (const run of RUNS.filter((r) => r.on === 'both' || r.on === backend || !available.includes(r.on))) {
      const { seed, steps, chain, venue } = run;
      const sweeps = 'sweeps' in run && run.sweeps;
      it(`seed ${seed}${chain ? ' on a chain' : ''}${venue ? ' and a venue' : ''}${sweeps ? ' with sweeps' : ''}: ${steps} steps with faults, no violation`, { timeout: 420_000 }, async () => {
        await cleanRun(backend, run);
      });
    }

    if (SWEEP_RUN.on === backend || !available.includes(SWEEP_RUN.on)) {
      it('on a chain with sweeps and their faults, settles sweeps leg by leg with no violation', { timeout: 420_000 }, async (t) => {
        const { result, replay } = await cleanRun(backend, SWEEP_RUN);
        const settled = Object.entries(result.outcomes).filter(([kind]) => / sweep .*SETTLED$/.test(kind)).reduce((n, [, count]) => n + count, 0);
        assert.ok(settled >= 1, `a sweep settled: ${JSON.stringify(result.outcomes)}\n${replay}`);
        t.diagnostic(`sweeps settled on two legs or more: ${result.multiLegSweepsSettled}`);
      });
    }

    if (PERP_SWEEP_RUN.on === backend || !available.includes(PERP_SWEEP_RUN.on)) {
      it('at a venue with sweeps and venue faults, executes perp sweeps leg by leg with no violation', { timeout: 420_000 }, async (t) => {
        const { result, replay } = await cleanRun(backend, PERP_SWEEP_RUN);
        // Executed: legs selected, their orders sent; whether they settle is the venue faults' and timing's.
        const executed = Object.entries(result.outcomes).filter(([kind]) => /^perp sweep \d+ of \d+ legs /.test(kind)).reduce((n, [, count]) => n + count, 0);
        assert.ok(executed >= 1, `a perp sweep executed: ${JSON.stringify(result.outcomes)}\n${replay}`);
        t.diagnostic(`perp sweep outcomes: ${JSON.stringify(Object.fromEntries(Object.entries(result.outcomes).filter(([kind]) => kind.startsWith('perp sweep'))))}`);
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
        // What a stale-snapshot finding prints beside the session's last seq: the store's own count.
        const committed = await stack.committedSeqs(taker.address);
        assert.ok((committed['balances'] ?? 0) >= 1, JSON.stringify(committed));
        await stack.admin.adjustBalance({ address: taker.address, token: 'USDC', amount: '5', memo: 'behind the model' });
        assert.equal((await stack.committedSeqs(taker.address))['balances'], committed['balances']! + 1, 'one balances frame for the adjustment');
        await checker.afterStep();
        const found: Violation[] = findings.list;
        assert.deepEqual(found.map((v) => [v.check, v.detail]), [['modelTotal', 'T0 USDC: total 1005000000, acknowledged 1000000000 (raw)']]);
      } finally {
        for (const actor of actors) actor.watch.close();
        await stack.close();
      }
    });

    it('reports a top of book the makers\' latest ladders do not make', { timeout: 240_000 }, async () => {
      const stack = await SimStack.start(backend, { settlementHeadroomSecs: 2 });
      const findings = new Findings();
      const actors = await createActors(stack, 9, findings, { takers: 1, makers: 2 });
      const prices = new PriceFeeds(stack, findings);
      try {
        await prices.connect(actors);
        const [, maker, other] = actors;
        const rng = new Prng(9);
        prices.tick(maker!, rng);
        assert.match(await prices.converged(actors, 5000), /^converged in/);
        assert.deepEqual(findings.list, []);
        // A ladder the model never heard of (sent on the other maker's own socket): better on both sides.
        const feed = new PriceIngestClient({ baseUrl: stack.urlOf(other!.node), credentials: other!.client.credentials!, timestamps: other!.client.http.timestamps });
        await feed.connect();
        try {
          feed.publish({ instrumentId: 'ETH-USDC-SPOT', bids: [['3001', '1']], asks: [['3002', '1']] });
          feed.publish({ instrumentId: 'BTC-USDC-SPOT', bids: [['60001', '1']], asks: [['60002', '1']] });
          // The check looks at what the taker has seen: wait until the new ladder's prices arrive.
          assert.equal(await eventually(() => prices.converged(actors, 3000), (verdict) => verdict === 'not converged', 10_000, 100), 'not converged');
        } finally {
          feed.close();
        }
        const found: Violation[] = findings.list;
        assert.ok(found.some((v) => v.check === 'priceFrame' && /no maker ever showed/.test(v.detail)), JSON.stringify(found));
        assert.ok(found.some((v) => v.check === 'priceTop'), JSON.stringify(found));
      } finally {
        prices.close();
        for (const actor of actors) actor.watch.close();
        await stack.close();
      }
    });

    it('on a chain, reports a deposit the driver never sent', { timeout: 240_000 }, async () => {
      const stack = await SimStack.start(backend, { settlementHeadroomSecs: 15 }, { chain: true });
      const findings = new Findings();
      const model = new Model();
      const actors = await createActors(stack, 8, findings, { takers: 1, makers: 1 });
      try {
        const driver = new Driver(8, stack, model, findings, actors, false);
        const checker = new Checker(stack, model, findings, actors);
        const taker = actors[0]!;
        await driver.depositOnChain([[taker, 'USDC', '1000']]);
        await checker.depositsCredited(60_000);
        await checker.afterStep();
        assert.deepEqual(findings.list, []);
        // A transfer to custody from the taker's wallet that the driver did not make (nor record).
        const hash = await taker.wallet!.transfer(stack.chain!, 'USDC', stack.chain!.custody, 5_000_000n);
        assert.equal((await taker.wallet!.receipt(hash)).status, 'success');
        await waitFor(async () => (await taker.client.deposits()).items.some((d) => d.txHash === hash.toLowerCase() && d.status === 'COMPLETED'), 'the node credits the transfer', { timeoutMs: 60_000, pollMs: 300 });
        await checker.afterStep();
        const found: Violation[] = findings.list;
        assert.deepEqual(found.map((v) => [v.check, v.detail]), [
          ['exactlyOnce', `T0: deposit ${hash.toLowerCase()} (COMPLETED) never sent by it`],
          ['modelTotal', 'T0 USDC: total 1005000000, acknowledged 1000000000 (raw)'],
        ]);
      } finally {
        for (const actor of actors) actor.watch.close();
        await stack.close();
      }
    });
  });
}
