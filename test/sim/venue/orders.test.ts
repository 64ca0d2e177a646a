// The simulator's books against the unmodified SDK clients: rest, cross, IOC walk, ALO refusal,
// grids, minimum value, margin, spot holds, cancels, order status.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cloidOf, filledOf, limit, newWallet, restingOf, startSim, type SimFixture } from './helpers.ts';

const SOL = 2;
const BTC = 0;
const HYPE_SPOT = 10_001;

let f: SimFixture;
before(async () => {
  f = await startSim();
  // SOL without the liquidity account: the tests lay out its book themselves.
  await f.control.book({ coin: 'SOL', enabled: false });
});
after(() => f.sim.stop());

async function funded(perpUsd = '100000') {
  const w = newWallet();
  await f.control.fund({ user: w.address, account: 'perp', token: 'USDC', amount: perpUsd });
  return { w, ex: f.exchange(w) };
}

describe('venue simulator: perp orders', () => {
  it('rests GTC orders, walks the book with an IOC at maker prices and cancels the rest', async () => {
    const maker = await funded();
    const taker = await funded();
    for (const [i, px] of ['150', '151', '152'].entries()) {
      restingOf(await maker.ex.order({ orders: [limit(SOL, false, px, '1', 'Gtc', cloidOf(100 + i))], grouping: 'na' }));
    }
    const r = await taker.ex.order({ orders: [limit(SOL, true, '151.5', '2.5', 'Ioc', cloidOf(110))], grouping: 'na' });
    const st = filledOf(r);
    assert.equal(st.totalSz, '2.0'); // as the venue writes numbers: always a fractional part
    assert.equal(st.avgPx, '150.5');
    assert.equal(st.cloid, cloidOf(110));

    const fills = await f.info.userFills({ user: taker.w.address });
    assert.equal(fills.length, 2);
    const [second, first] = fills; // newest first
    assert.deepEqual([first!.px, first!.sz, first!.side, first!.crossed, first!.dir], ['150.0', '1.0', 'B', true, 'Open Long']);
    assert.equal(first!.fee, '0.0675'); // 0.045 % of 150
    assert.equal(second!.fee, '0.06795');
    assert.equal(first!.hash, second!.hash);
    assert.notEqual(first!.tid, second!.tid);
    assert.equal(first!.feeToken, 'USDC');
    assert.equal(first!.cloid, cloidOf(110));
    const makerFills = await f.info.userFills({ user: maker.w.address });
    assert.equal(makerFills.length, 2);
    assert.ok(makerFills.every((x) => !x.crossed && x.side === 'A'));
    assert.equal(makerFills.find((x) => x.px === '150.0')!.fee, '0.0225'); // 0.015 %
    assert.deepEqual(
      new Set(makerFills.map((x) => x.tid)),
      new Set(fills.map((x) => x.tid)),
    );

    const open = await f.info.openOrders({ user: maker.w.address });
    assert.deepEqual(open.map((o) => [o.limitPx, o.sz]), [['152.0', '1.0']]);
    const book = await f.info.l2Book({ coin: 'SOL' });
    assert.deepEqual(book!.levels[1].map((l) => l.px), ['152.0']);

    const state = await f.info.clearinghouseState({ user: taker.w.address });
    const pos = state.assetPositions[0]!.position;
    assert.equal(pos.coin, 'SOL');
    assert.equal(pos.szi, '2.0');
    assert.equal(pos.entryPx, '150.5');
    const makerPos = (await f.info.clearinghouseState({ user: maker.w.address })).assetPositions[0]!.position;
    assert.equal(makerPos.szi, '-2.0');

    const status = await f.info.orderStatus({ user: maker.w.address, oid: cloidOf(100) });
    assert.equal(status.status, 'order');
    assert.equal(status.status === 'order' && status.order.status, 'filled');
    await maker.ex.cancel({ cancels: [{ a: SOL, o: open[0]!.oid }] });
    assert.deepEqual(await f.info.openOrders({ user: maker.w.address }), []);
    const canceled = await f.info.orderStatus({ user: maker.w.address, oid: open[0]!.oid });
    assert.equal(canceled.status === 'order' && canceled.order.status, 'canceled');
    await assert.rejects(
      maker.ex.cancel({ cancels: [{ a: SOL, o: open[0]!.oid }] }),
      /Order was never placed, already canceled, or filled\. asset=2/,
    );
  });

  it('refuses an ALO that would cross and an IOC with nothing to match', async () => {
    const bidder = await funded();
    const other = await funded();
    await bidder.ex.order({ orders: [limit(SOL, true, '140', '1', 'Gtc')], grouping: 'na' });
    await assert.rejects(
      other.ex.order({ orders: [limit(SOL, false, '139', '1', 'Alo', cloidOf(200))], grouping: 'na' }),
      /Post only order would have immediately matched, bbo was 140@(\d+(\.\d+)?)?\. asset=2/,
    );
    const alo = await f.info.orderStatus({ user: other.w.address, oid: cloidOf(200) });
    assert.equal(alo.status === 'order' && alo.order.status, 'badAloPxRejected');
    restingOf(await other.ex.order({ orders: [limit(SOL, false, '160', '1', 'Alo')], grouping: 'na' }));
    await assert.rejects(
      other.ex.order({ orders: [limit(SOL, false, '141', '1', 'Ioc', cloidOf(201))], grouping: 'na' }),
      /Order could not immediately match against any resting orders\. asset=2/,
    );
    const ioc = await f.info.orderStatus({ user: other.w.address, oid: cloidOf(201) });
    assert.equal(ioc.status === 'order' && ioc.order.status, 'iocCancelRejected');
  });

  it('enforces the price grid, the size grid, the $10 minimum and initial margin', async () => {
    const { ex } = await funded('20');
    const cases: [ReturnType<typeof limit>, RegExp][] = [
      [limit(SOL, true, '100.123', '1', 'Alo'), /Order has invalid price/], // 6 significant figures
      [limit(BTC, true, '12345.5', '0.001', 'Alo'), /Order has invalid price/], // 6 sig figs
      [limit(SOL, true, '1.00001', '20', 'Alo'), /Order has invalid price/], // 5 decimals > 6 - 2
      [limit(SOL, true, '100', '0.123', 'Alo'), /Order has invalid size/],
      [limit(SOL, true, '100', '0.09', 'Alo'), /Order must have minimum value of \$10\. asset=2/],
      [limit(BTC, true, '90000', '0.01', 'Alo'), /Insufficient margin to place order\. asset=0/], // 900 notional / 40 > 20
    ];
    for (const [order, error] of cases) {
      await assert.rejects(ex.order({ orders: [order], grouping: 'na' }), error, JSON.stringify(order));
    }
    // An integer price is valid whatever its significant figures (100001 has six); inside the spread, so it rests.
    restingOf(await ex.order({ orders: [limit(BTC, true, '100001', '0.0001', 'Alo')], grouping: 'na' }));
  });
});

describe('venue simulator: spot orders', () => {
  it('holds the quote for a resting buy, refuses an unfunded sell, fills an IOC with the fee in the received token', async () => {
    const w = newWallet();
    await f.control.fund({ user: w.address, account: 'spot', token: 'USDC', amount: '100' });
    const ex = f.exchange(w);
    restingOf(await ex.order({ orders: [limit(HYPE_SPOT, true, '30', '2', 'Gtc', cloidOf(300))], grouping: 'na' }));
    let spot = await f.info.spotClearinghouseState({ user: w.address });
    assert.deepEqual(spot.balances.map((b) => [b.coin, b.total, b.hold]), [['USDC', '100.0', '60.0']]);
    await assert.rejects(ex.order({ orders: [limit(HYPE_SPOT, false, '50', '1', 'Gtc')], grouping: 'na' }), /Insufficient spot balance/);
    await assert.rejects(ex.order({ orders: [limit(HYPE_SPOT, true, '30', '2', 'Gtc')], grouping: 'na' }), /Insufficient spot balance/);
    await ex.cancelByCloid({ cancels: [{ asset: HYPE_SPOT, cloid: cloidOf(300) }] });

    const book = await f.info.l2Book({ coin: '@1' });
    const bestAsk = book!.levels[1][0]!.px;
    const fill = await ex.order({ orders: [limit(HYPE_SPOT, true, '41', '1', 'Ioc')], grouping: 'na' });
    assert.deepEqual([filledOf(fill).totalSz, filledOf(fill).avgPx], ['1.0', bestAsk]);
    const [userFill] = await f.info.userFills({ user: w.address });
    assert.equal(userFill!.coin, '@1');
    assert.equal(userFill!.feeToken, 'HYPE');
    assert.equal(userFill!.fee, '0.0007'); // 0.07 % of 1 HYPE
    assert.equal(userFill!.dir, 'Buy');
    spot = await f.info.spotClearinghouseState({ user: w.address });
    const hype = spot.balances.find((b) => b.coin === 'HYPE')!;
    assert.equal(hype.total, '0.9993');
    const usdc = spot.balances.find((b) => b.coin === 'USDC')!;
    assert.equal(usdc.hold, '0.0');
    const mids = await f.info.allMids();
    assert.ok(mids['@1'] && mids['PURR/USDC'] && mids.BTC && mids.ETH);
  });
});

describe('venue simulator: liquidity walk and reset', () => {
  it('a seeded walk moves the mid with sim time, the same way for the same seed; reset restores the defaults', async () => {
    const other = await startSim({ seed: 7 });
    const same = await startSim({ seed: 7 });
    try {
      const mids: string[] = [];
      for (const g of [other, same]) {
        await g.control.clock({ setMs: 1_800_000_000_000, freeze: true });
        await g.control.book({ coin: 'ETH', mid: '3500', walk: { stepBps: 10, intervalMs: 1_000 } });
        await g.control.clock({ advanceMs: 20_000 });
        mids.push((await g.info.allMids()).ETH!);
      }
      assert.notEqual(mids[0], '3500.0');
      assert.equal(mids[0], mids[1]);
      const book = await other.info.l2Book({ coin: 'ETH' });
      assert.ok(book!.levels[0].length === 10 && book!.levels[1].length === 10);
      await other.control.reset();
      assert.equal((await other.info.allMids()).ETH, '3500.0');
    } finally {
      await Promise.all([other.sim.stop(), same.sim.stop()]);
    }
  });
});
