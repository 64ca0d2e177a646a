// The realistic profile's moving book: one-tick spreads around a walking mid, other makers at the
// top (an order joining the best price queues behind them), other takers lifting the top now and
// then, all drawn from the seed and sim time; the fast profile's book as it always was.
import { after, before, describe, it } from 'node:test';
import { ExchangeClient, HttpTransport } from '@nktkas/hyperliquid';
import assert from 'node:assert/strict';
import { parseUnits } from '../../../sim/venue/decimal.ts';
import { resolveProfile } from '../../../sim/venue/profile.ts';
import { filledOf, limit, newWallet, restingOf, startSim, type SimFixture } from './helpers.ts';

const ETH = 1;
/** Far from the wall clock, so the walk and the takers start there and nowhere else. */
const START_MS = 2_000_000_000_000;
/** The longest a resting order at the top waits here for a third party. */
const LIFT_BOUND_MS = 600_000;
// No latency and no read lag: the sim clock is frozen, so only the moving book is under test.
const REALISTIC = resolveProfile('realistic', { latency: null, readLagMs: 0 });

type Level = { px: string; sz: string; n: number };
const units = (text: string): bigint => parseUnits(text)!;

async function top(g: SimFixture, coin: string): Promise<{ bid: Level; ask: Level }> {
  const book = await g.info.l2Book({ coin });
  return { bid: book!.levels[0][0]!, ask: book!.levels[1][0]! };
}

async function frozenRealistic(seed = 1): Promise<SimFixture> {
  const g = await startSim({ seed, profile: REALISTIC });
  await g.control.clock({ setMs: START_MS, freeze: true });
  return g;
}

// Nonces from the sim clock's start, not the wall clock: the venue keeps them within a day of its own clock.
let nextNonce = START_MS;

async function funded(g: SimFixture) {
  const w = newWallet();
  await g.control.fund({ user: w.address, account: 'perp', token: 'USDC', amount: '100000' });
  const ex = new ExchangeClient({ transport: new HttpTransport({ apiUrl: g.sim.url, timeout: 5_000 }), wallet: w, nonceManager: () => nextNonce++ });
  return { w, ex };
}

describe('venue simulator: the realistic profile moving book', () => {
  let f: SimFixture;
  before(async () => {
    f = await frozenRealistic();
  });
  after(() => f.sim.stop());

  it('lays every book one tick wide (5 significant figures, at most 6 or 8 - szDecimals decimals), other makers at the top', async () => {
    // The tick at each default mid: BTC ~100000 -> 1; ETH ~3500 -> 0.1; SOL ~150 -> 0.01 (4 decimals allowed,
    // 5 significant figures bind); PURR ~0.2 spot -> 0.00001; HYPE ~40 spot -> 0.001.
    const ticks: Record<string, string> = { BTC: '1', ETH: '0.1', SOL: '0.01', 'PURR/USDC': '0.00001', '@1': '0.001' };
    for (const [coin, tick] of Object.entries(ticks)) {
      const { bid, ask } = await top(f, coin);
      assert.equal(units(ask.px) - units(bid.px), units(tick), `${coin} spread ${bid.px}@${ask.px}`);
      assert.equal(bid.n, 2, `${coin}: both other makers bid at the top`);
      assert.equal(ask.n, 2, `${coin}: both other makers offer at the top`);
    }
  });

  it('an ALO joining the best price queues behind the other makers: a smaller IOC fills them, not it', async () => {
    const maker = await funded(f);
    const taker = await funded(f);
    const { ask } = await top(f, 'ETH');
    const { oid } = restingOf(await maker.ex.order({ orders: [limit(ETH, false, ask.px, '0.1', 'Alo')], grouping: 'na' }));
    const after = await top(f, 'ETH');
    assert.deepEqual([after.ask.px, after.ask.n], [ask.px, 3]);
    // Less than the other makers' size at that price.
    assert.ok(units('0.1') < units(ask.sz));
    const fill = filledOf(await taker.ex.order({ orders: [limit(ETH, true, ask.px, '0.1', 'Ioc')], grouping: 'na' }));
    assert.deepEqual([fill.totalSz, fill.avgPx], ['0.1', ask.px]);
    const status = (await f.info.orderStatus({ user: maker.w.address, oid })) as { status: string; order?: { status: string; order: { sz: string } } };
    assert.deepEqual([status.order?.status, status.order?.order.sz], ['open', '0.1']);
    assert.deepEqual(await f.info.userFills({ user: maker.w.address }), []);
    await maker.ex.cancel({ cancels: [{ a: ETH, o: oid }] });
  });

  it('refuses an ALO at a price the mid has since moved through', async () => {
    const maker = await funded(f);
    const before = await top(f, 'ETH');
    let refused: string | null = null;
    for (let t = 0; t < LIFT_BOUND_MS && refused === null; t += 2_000) {
      await f.control.clock({ advanceMs: 2_000 });
      const now = await top(f, 'ETH');
      // The old ask is now at or below the bid (or the old bid at or above the ask): a post-only order there would take.
      const order = units(now.bid.px) >= units(before.ask.px) ? limit(ETH, false, before.ask.px, '0.1', 'Alo')
        : units(now.ask.px) <= units(before.bid.px) ? limit(ETH, true, before.bid.px, '0.1', 'Alo') : null;
      if (order === null) continue;
      await assert.rejects(maker.ex.order({ orders: [order], grouping: 'na' }), (error: Error) => {
        refused = error.message;
        return true;
      });
    }
    assert.match(refused ?? 'never refused', /Post only order would have immediately matched, bbo was [0-9.]+@[0-9.]+\. asset=1/);
  });

  it('another taker lifts a resting order at the top within a bounded sim time', async () => {
    // Its own walk of 0 bp: the mid stays, so the order stays at the top while the takers come.
    await f.control.book({ coin: 'ETH', walk: { stepBps: 0, intervalMs: 1_000 } });
    const maker = await funded(f);
    const { ask } = await top(f, 'ETH');
    const placedAt = (await f.control.clock()).nowMs;
    const { oid } = restingOf(await maker.ex.order({ orders: [limit(ETH, false, ask.px, '0.1', 'Alo')], grouping: 'na' }));
    let fills: Awaited<ReturnType<SimFixture['info']['userFills']>> = [];
    for (let t = 0; t < LIFT_BOUND_MS && fills.length === 0; t += 1_000) {
      await f.control.clock({ advanceMs: 1_000 });
      fills = await f.info.userFills({ user: maker.w.address });
    }
    assert.ok(fills.length > 0, 'lifted within the bound');
    assert.ok(fills.every((x) => x.oid === oid && !x.crossed && x.side === 'A' && x.px === ask.px));
    assert.ok(fills[0]!.time - placedAt <= LIFT_BOUND_MS);
    await f.control.book({ coin: 'ETH', walk: null });
  });

  it('a pinned book (moving: false) is laid as the fast profile lays it and stays', async () => {
    await f.control.book({ coin: 'SOL', mid: '150', moving: false });
    const pinned = await f.info.l2Book({ coin: 'SOL' });
    await f.control.clock({ advanceMs: 60_000 });
    const later = await f.info.l2Book({ coin: 'SOL' });
    assert.deepEqual(later!.levels, pinned!.levels);
    assert.deepEqual([pinned!.levels[0][0]!.px, pinned!.levels[1][0]!.px, pinned!.levels[0][0]!.n], ['149.98', '150.02', 1]);
    await f.control.book({ coin: 'SOL', moving: true });
    assert.equal((await top(f, 'SOL')).bid.n, 2);
  });
});

describe('venue simulator: the moving book from the seed', () => {
  it('gives the same books and trades for the same seed and sim times, others for another seed', async () => {
    const run = async (seed: number) => {
      const g = await frozenRealistic(seed);
      try {
        // A resting order at the top of BTC: which third party lifts it, and when, is part of the sequence.
        const maker = await funded(g);
        const { ask } = await top(g, 'BTC');
        restingOf(await maker.ex.order({ orders: [limit(0, false, ask.px, '0.001', 'Gtc')], grouping: 'na' }));
        const seen: unknown[] = [];
        for (let i = 0; i < 60; i++) {
          await g.control.clock({ advanceMs: 1_000 });
          for (const coin of ['BTC', 'ETH', '@1']) seen.push((await g.info.l2Book({ coin }))!.levels.map((side) => side.slice(0, 3)));
        }
        const fills = await g.info.userFills({ user: maker.w.address });
        seen.push(fills.map((x) => [x.px, x.sz, x.time]));
        return seen;
      } finally {
        await g.sim.stop();
      }
    };
    const [a, b, c] = await Promise.all([run(7), run(7), run(8)]);
    assert.deepEqual(a, b);
    assert.notDeepEqual(a, c);
  });
});

describe('venue simulator: the fast profile book', () => {
  it('stays as the liquidity account lays it: 1 bp then every 2 bp (on the price grid), no other traders, no walk', async () => {
    const g = await startSim();
    try {
      assert.equal(g.sim.otherTraders, null);
      await g.control.clock({ setMs: START_MS, freeze: true });
      const book = await g.info.l2Book({ coin: 'ETH' });
      assert.deepEqual(book!.levels[0].slice(0, 2), [{ px: '3499.6', sz: '14.2873', n: 1 }, { px: '3498.9', sz: '14.2902', n: 1 }]);
      assert.deepEqual(book!.levels[1].slice(0, 2), [{ px: '3500.4', sz: '14.284', n: 1 }, { px: '3501.1', sz: '14.2812', n: 1 }]);
      await g.control.clock({ advanceMs: 600_000 });
      assert.deepEqual((await g.info.l2Book({ coin: 'ETH' }))!.levels, book!.levels);
    } finally {
      await g.sim.stop();
    }
  });
});
