// The venue's crowd beyond the liquidity account, for a profile with `movingBook`: each book's mid
// walks, other makers keep the best bid and ask one tick apart (so an order joining the best
// price queues behind them: the engine matches best price, then time), and other takers now and
// then send an IOC at the best price (so a resting order at the top can be lifted by someone
// else). Everything is drawn from sha256(seed, coin, step), so the same seed and the same sim
// times give the same book and the same trades; no Math.random.
import { createHash } from 'node:crypto';
import { keccak256, toHex } from 'viem';
import type { MovingBookConfig } from './profile.ts';
import { formatUnits, mulDivDown, parseUnits, UNIT, UNIT_DECIMALS } from './decimal.ts';
import type { Engine, OrderWire } from './engine.ts';
import { roundPriceToGrid, roundSizeDown } from './grid.ts';
import type { Address, Market } from './state.ts';

/** A clock jump longer than this many taker steps is skipped, not replayed (as the walk does). */
const MAX_TAKER_STEPS_PER_CALL = 1_000;
/** As the liquidity account: effectively unlimited funds. */
const PLENTY = 10n ** 15n * UNIT;

export type OtherTraderAddresses = { makers: Address[]; takers: Address[] };

/** The other traders' accounts, derived from the seed like the liquidity account. */
export function otherTraderAddresses(seed: number, config: MovingBookConfig): OtherTraderAddresses {
  const derive = (role: string, i: number) => `0x${keccak256(toHex(`venue-sim other ${role} ${seed} ${i}`)).slice(-40)}`.toLowerCase() as Address;
  return {
    makers: Array.from({ length: config.makers.count }, (_v, i) => derive('maker', i)),
    takers: Array.from({ length: config.takers.count }, (_v, i) => derive('taker', i)),
  };
}

/** Whether the crowd trades on this book: the profile has it, the book has liquidity and is not pinned. */
function isMoving(engine: Engine, m: Market): boolean {
  return engine.profile.movingBook !== null && m.liquidity !== null && m.moving !== false;
}

function draw(seed: number, coin: string, what: string, step: number): Buffer {
  return createHash('sha256').update(`${seed}:${coin}:${what}:${step}`).digest();
}

/** The grid price just above `px` (the next tick up). */
export function tickAbove(px: bigint, m: Market): bigint {
  return roundPriceToGrid(px + 1n, m.szDecimals, m.isSpot, 'up');
}

/** The grid price just below `px`. */
function tickBelow(px: bigint, m: Market): bigint {
  return roundPriceToGrid(px - 1n, m.szDecimals, m.isSpot, 'down');
}

/**
 * The crowd on the venue's books: call `advance` before each request (as the walks are advanced),
 * `relay` when a book's set-up changes.
 */
export class OtherTraders {
  readonly engine: Engine;
  readonly config: MovingBookConfig;
  readonly addresses: OtherTraderAddresses;

  constructor(engine: Engine, config: MovingBookConfig) {
    this.engine = engine;
    this.config = config;
    this.addresses = otherTraderAddresses(engine.state.seed, config);
    engine.otherTraders = new Set([...this.addresses.makers, ...this.addresses.takers]);
  }

  /** Moves every book to the current sim time: walk steps, then the other takers' steps; true when anything changed. */
  advance(): boolean {
    const e = this.engine;
    this.fund();
    const now = e.now();
    const walk = this.config.walk;
    for (const m of Object.values(e.state.markets)) {
      // A book first seen starts where it is (the engine's walk would take one step at once).
      if (isMoving(e, m) && !m.liquidity!.walk && m.walkStep === 0) m.walkStep = Math.floor(now / walk.intervalMs);
    }
    const mids = new Map(Object.values(e.state.markets).map((m) => [m.asset, m.mid]));
    let changed = e.advanceWalks((m) => (isMoving(e, m) ? walk : null));
    for (const m of Object.values(e.state.markets)) {
      if (!isMoving(e, m)) continue;
      if (m.mid !== mids.get(m.asset)) this.relay(m);
      else changed = this.keepTop(m) || changed;
      changed = this.takeSteps(m, now) || changed;
    }
    return changed;
  }

  /** Lays a book afresh: the other makers at its top (none when it does not move), the liquidity account behind them. */
  relay(m: Market): void {
    if (isMoving(this.engine, m)) {
      this.fund();
      this.keepTop(m);
    } else {
      for (const o of this.makerOrders(m)) this.engine.cancel(o.user, m.asset, o.oid);
    }
    this.engine.refreshLiquidity(m);
  }

  /** The crowd's accounts hold effectively unlimited funds (again after a reset). */
  private fund(): void {
    for (const a of this.engine.otherTraders) {
      if (this.engine.isKnownUser(a)) continue;
      const u = this.engine.user(a);
      u.perpUsd = PLENTY;
      this.engine.state.spotTokens.forEach((_t, i) => (this.engine.spotBalance(u, i).total = PLENTY));
    }
  }

  private makerOrders(m: Market) {
    const book = this.engine.state.books[String(m.asset)]!;
    const makers = new Set(this.addresses.makers);
    return [...book.bids, ...book.asks].map((oid) => this.engine.state.orders[String(oid)]!).filter((o) => makers.has(o.user));
  }

  /**
   * The best bid and ask one tick apart around the mid, each kept off any other order it would
   * cross (a user's order the mid moved through is left for the takers, not traded by a re-lay).
   */
  private topPrices(m: Market): { bid: bigint; ask: bigint } {
    const e = this.engine;
    const makers = new Set(this.addresses.makers);
    const bestOther = (side: 'bids' | 'asks') => {
      const oid = e.state.books[String(m.asset)]![side].find((id) => !makers.has(e.state.orders[String(id)]!.user));
      return oid === undefined ? null : e.state.orders[String(oid)]!.limitPx;
    };
    let bid = roundPriceToGrid(m.mid, m.szDecimals, m.isSpot, 'down');
    let ask = tickAbove(bid, m);
    const otherAsk = bestOther('asks');
    const otherBid = bestOther('bids');
    if (otherAsk !== null && bid >= otherAsk) bid = tickBelow(otherAsk, m);
    if (otherBid !== null && ask <= otherBid) ask = tickAbove(otherBid, m);
    return { bid, ask };
  }

  /**
   * Each other maker keeps one order at the best bid and one at the best ask: an order at the
   * right price stays (its place in the queue with it, also when partly filled), one at a stale
   * price is cancelled, a missing one is posted (at the back of its price's queue).
   */
  private keepTop(m: Market): boolean {
    const e = this.engine;
    const { bid, ask } = this.topPrices(m);
    let changed = false;
    const resting = this.makerOrders(m);
    for (const o of resting) {
      if (o.limitPx !== (o.isBuy ? bid : ask)) {
        e.cancel(o.user, m.asset, o.oid);
        changed = true;
      }
    }
    const notional = parseUnits(this.config.makers.notionalUsd) ?? 0n;
    for (const maker of this.addresses.makers) {
      for (const [isBuy, px] of [[true, bid], [false, ask]] as const) {
        if (px <= 0n || resting.some((o) => o.user === maker && o.isBuy === isBuy && o.limitPx === px)) continue;
        const sz = roundSizeDown(mulDivDown(notional, UNIT, px), m.szDecimals);
        if (sz <= 0n) continue;
        // Alo: a re-lay never trades.
        e.placeOrder(maker, this.wire(m, isBuy, px, sz, 'Alo'), null, this.hashOf(m, 'maker', e.state.nextOid), null, new Set());
        changed = true;
      }
    }
    return changed;
  }

  /** The other takers' steps up to `now`: each may send one IOC at the best price on one side. */
  private takeSteps(m: Market, now: number): boolean {
    const e = this.engine;
    const { intervalMs, chancePct, maxNotionalUsd } = this.config.takers;
    const target = Math.floor(now / intervalMs);
    if (m.takerStep === undefined || target - m.takerStep > MAX_TAKER_STEPS_PER_CALL) m.takerStep = target;
    let changed = false;
    const minNotional = e.state.minOrderValue;
    const maxNotional = parseUnits(maxNotionalUsd) ?? 0n;
    for (let k = m.takerStep + 1; k <= target; k++) {
      const d = draw(e.state.seed, m.coin, 'taker', k);
      if (d.readUInt16BE(0) % 100 >= chancePct || this.addresses.takers.length === 0 || maxNotional < minNotional) continue;
      const isBuy = d[2]! % 2 === 0;
      const taker = this.addresses.takers[d[3]! % this.addresses.takers.length]!;
      const px = e.bestPx(m.asset, isBuy ? 'asks' : 'bids');
      if (px === null) continue;
      // Notional uniform in [min, max], exact: a 32-bit fraction of the range.
      const notional = minNotional + mulDivDown(maxNotional - minNotional, BigInt(d.readUInt32BE(4)), 2n ** 32n);
      // Rounded up to the lot so the order is worth at least the venue's minimum.
      const lot = 10n ** BigInt(UNIT_DECIMALS - m.szDecimals);
      const sz = ((mulDivDown(notional, UNIT, px) + lot - 1n) / lot) * lot;
      const touched = new Set<number>();
      const oidBefore = e.state.nextOid;
      e.placeOrder(taker, this.wire(m, isBuy, px, sz, 'Ioc'), null, this.hashOf(m, 'taker', k), null, touched);
      // The IOC is over: nobody asks about it, so it is not kept.
      delete e.state.orders[String(oidBefore)];
      this.keepTop(m);
      if (touched.size > 0) e.refreshLiquidity(m);
      changed = true;
    }
    m.takerStep = target;
    return changed;
  }

  private wire(m: Market, isBuy: boolean, px: bigint, sz: bigint, tif: 'Alo' | 'Ioc'): OrderWire {
    return { a: m.asset, b: isBuy, p: formatUnits(px), s: formatUnits(sz), r: false, t: { limit: { tif } } };
  }

  /** A trade's hash (the venue's is the taker action's L1 hash): the crowd has none, so one derived from the seed. */
  private hashOf(m: Market, what: string, step: number): `0x${string}` {
    return `0x${draw(this.engine.state.seed, m.coin, `${what}-hash`, step).toString('hex')}`;
  }
}
