// The matching engine and accounts: price-time books per asset, perp margin and positions, spot
// balances with holds, fills with fees and builder fees, the seeded liquidity account.
import { createHash } from 'node:crypto';
import { keccak256, toHex } from 'viem';
import type { LiquidityConfig, VenueSimConfig } from './config.ts';
import { PROFILES, type SimProfile } from './profile.ts';
import { absBig, formatUnits, formatUnitsFixed, minBig, mulDivDown, mulDivUp, parseUnits, UNIT } from './decimal.ts';
import { priceOnGrid, roundPriceToGrid, roundSizeDown, sizeOnGrid } from './grid.ts';
import {
  emptyUser,
  type Address,
  type FillRecord,
  type LedgerRecord,
  type Market,
  type Order,
  type OrderStatus,
  type SimState,
  type Tif,
  type UserState,
} from './state.ts';

export const SPOT_ASSET_OFFSET = 10_000;
const TENTH_BP = 100_000n;
const MAX_FILLS_KEPT = 2_000;
const MAX_WALK_STEPS_PER_CALL = 1_000;
const L2_LEVELS = 20;

/**
 * Whole-action errors and per-order error strings, as the venue words them. A per-order error
 * ends with a period and names the asset (` asset=N`, see `orderError`), as the venue's replies do.
 */
export const VenueErrors = {
  postOnlyWouldMatch: 'Post only order would have immediately matched',
  minValue: 'Order must have minimum value of $10',
  margin: 'Insufficient margin to place order',
  iocNoMatch: 'Order could not immediately match against any resting orders',
  invalidPrice: 'Order has invalid price',
  invalidSize: 'Order has invalid size',
  cancelMissing: 'Order was never placed, already canceled, or filled',
  duplicateNonce: 'Invalid nonce: duplicate nonce',
  nonceTooLow: 'Invalid nonce: nonce too low',
  nonceTooOld: 'Invalid nonce: nonce too far in the past',
  nonceTooNew: 'Invalid nonce: nonce too far in the future',
  builderNotApproved: 'Builder fee has not been approved',
  builderFeeTooHigh: 'Builder fee is above the maximum',
  spotBalance: 'Insufficient spot balance',
  reduceOnly: 'Reduce only order would increase position',
  invalidAsset: 'Order has invalid asset',
  trigger: 'Trigger orders are not supported by the simulator',
  unknownUser: (a: string) => `User or API Wallet ${a.toLowerCase()} does not exist.`,
} as const;

/** A per-order error as the venue writes it: the message, a final period, the asset. */
export function orderError(message: string, asset: number): string {
  return `${message}. asset=${asset}`;
}

/** What the venue's WebSocket pushes to a user's subscribers, one item at a time (ws.ts batches them). */
export type VenuePush =
  | { channel: 'userFills'; user: Address; item: FillRecord }
  | { channel: 'userNonFundingLedgerUpdates'; user: Address; item: LedgerRecord }
  | { channel: 'orderUpdates'; user: Address; item: { order: ReturnType<Engine['basicOrder']>; status: OrderStatus; statusTimestamp: number } };

export type OrderWire = {
  a: number;
  b: boolean;
  p: string;
  s: string;
  r: boolean;
  t: { limit: { tif: Tif } } | { trigger: unknown };
  c?: `0x${string}` | undefined;
};

export type OrderStatusReply =
  | { resting: { oid: number; cloid?: `0x${string}` } }
  | { filled: { totalSz: string; avgPx: string; oid: number; cloid?: `0x${string}` } }
  | { error: string };

export function lower(a: string): Address {
  return a.toLowerCase() as Address;
}

export function createInitialState(config: VenueSimConfig, seed: number): SimState {
  const tokenIndex = new Map(config.spotTokens.map((t, i) => [t.name, i]));
  const spotPairs = config.spotPairs.map((p, i) => {
    const base = tokenIndex.get(p.base);
    const quote = tokenIndex.get(p.quote);
    if (base === undefined || quote === undefined) throw new Error(`spot pair ${p.base}/${p.quote}: unknown token`);
    return { base, quote, name: p.name ?? (i === 0 ? `${p.base}/${p.quote}` : `@${i}`) };
  });
  const markets: Record<string, Market> = {};
  const liquidityFor = (coin: string, alias?: string) => config.liquidity[coin] ?? (alias ? config.liquidity[alias] : undefined) ?? null;
  config.perps.forEach((p, i) => {
    const liquidity = liquidityFor(p.name);
    markets[String(i)] = {
      asset: i, coin: p.name, isSpot: false, szDecimals: p.szDecimals, maxLeverage: p.maxLeverage,
      baseToken: -1, quoteToken: -1, liquidity, mid: midOf(liquidity), walkStep: 0,
    };
  });
  spotPairs.forEach((p, i) => {
    const base = config.spotTokens[p.base]!;
    const liquidity = liquidityFor(p.name, `${base.name}/${config.spotTokens[p.quote]!.name}`);
    markets[String(SPOT_ASSET_OFFSET + i)] = {
      asset: SPOT_ASSET_OFFSET + i, coin: p.name, isSpot: true, szDecimals: base.szDecimals, maxLeverage: 1,
      baseToken: p.base, quoteToken: p.quote, liquidity, mid: midOf(liquidity), walkStep: 0,
    };
  });
  const liquidityAddress = lower(`0x${keccak256(toHex(`venue-sim liquidity ${seed}`)).slice(-40)}`);
  const minOrderValue = parseUnits(config.minOrderValueUsd);
  if (minOrderValue === null) throw new Error('minOrderValueUsd must be a decimal string');
  return {
    version: 1,
    network: config.network,
    seed,
    fees: config.fees,
    nonceConfig: config.nonces,
    minOrderValue,
    maxPerpBuilderFeeTenthBp: config.maxPerpBuilderFeeTenthBp,
    maxSpotBuilderFeeTenthBp: config.maxSpotBuilderFeeTenthBp,
    agentDefaultValidityMs: config.agentDefaultValidityMs,
    perps: config.perps,
    spotTokens: config.spotTokens,
    spotPairs,
    markets,
    liquidityAddress,
    clockOffsetMs: 0,
    frozenAtMs: null,
    nextOid: 1_000_000,
    nextTid: 1,
    users: {},
    agents: {},
    nonces: {},
    orders: {},
    cloids: {},
    books: Object.fromEntries(Object.keys(markets).map((a) => [a, { bids: [], asks: [] }])),
    faults: [],
    nextFaultId: 1,
    deferred: [],
  };
}

function midOf(liquidity: Market['liquidity']): bigint {
  if (!liquidity) return 0n;
  const mid = parseUnits(liquidity.mid);
  if (mid === null || mid <= 0n) throw new Error(`liquidity mid ${liquidity.mid} is not a positive decimal`);
  return mid;
}

export class Engine {
  state: SimState;
  /** How like the real venue it behaves (profile.ts); not part of the saved state. */
  profile: SimProfile = PROFILES.fast;
  /**
   * Told of every fill, ledger update and order status as it is recorded (ws.ts pushes them to
   * subscribers); the crowd's (`isHouse`) are not told. Not part of the saved state.
   */
  onPush: ((push: VenuePush) => void) | null = null;
  /** Accounts of the simulated other traders: like the liquidity account, no margin checks and no records kept. */
  otherTraders: ReadonlySet<Address> = new Set();
  constructor(state: SimState) {
    this.state = state;
  }

  now(): number {
    return this.state.frozenAtMs ?? Date.now() + this.state.clockOffsetMs;
  }

  // ---------------------------------------------------------------- accounts

  /** The liquidity account or another trader: the venue's crowd, not a user of the simulator. */
  isHouse(address: Address): boolean {
    return address === this.state.liquidityAddress || this.otherTraders.has(address);
  }

  isKnownUser(address: string): boolean {
    return lower(address) in this.state.users;
  }

  user(address: string): UserState {
    const key = lower(address);
    return (this.state.users[key] ??= emptyUser());
  }

  spotBalance(user: UserState, token: number) {
    return (user.spot[String(token)] ??= { total: 0n, hold: 0n });
  }

  tokenByName(name: string): number {
    return this.state.spotTokens.findIndex((t) => t.name === name);
  }

  /** `NAME:0xtokenId` as the venue writes a token in `spotSend`, or a bare name. */
  tokenBySpec(spec: string): number {
    const [name, id] = spec.split(':');
    const i = this.tokenByName(name ?? '');
    if (i < 0) return -1;
    return id === undefined || id.toLowerCase() === this.state.spotTokens[i]!.tokenId.toLowerCase() ? i : -1;
  }

  market(asset: number): Market | undefined {
    return this.state.markets[String(asset)];
  }

  marketByCoin(coin: string): Market | undefined {
    const all = Object.values(this.state.markets);
    const direct = all.find((m) => m.coin === coin);
    if (direct) return direct;
    // `HYPE/USDC` names the pair the venue calls `@1`.
    return all.find((m) => m.isSpot && `${this.state.spotTokens[m.baseToken]!.name}/${this.state.spotTokens[m.quoteToken]!.name}` === coin);
  }

  pushLedger(address: string, record: LedgerRecord): void {
    this.user(address).ledger.push(record);
    this.onPush?.({ channel: 'userNonFundingLedgerUpdates', user: lower(address), item: record });
  }

  /** An order's current status, as `orderUpdates` pushes it. */
  private orderUpdated(o: Order): void {
    if (this.onPush === null || this.isHouse(o.user)) return;
    this.onPush({ channel: 'orderUpdates', user: lower(o.user), item: { order: this.basicOrder(o), status: o.status, statusTimestamp: o.statusTimestamp } });
  }

  /** An order as `orderUpdates` and `openOrders` show it (`WsBasicOrder`). */
  basicOrder(o: Order) {
    return {
      coin: o.coin, side: o.isBuy ? 'B' : 'A', limitPx: formatUnitsFixed(o.limitPx), sz: formatUnitsFixed(o.sz), oid: o.oid,
      timestamp: o.timestamp, origSz: formatUnitsFixed(o.origSz), ...(o.cloid ? { cloid: o.cloid } : {}),
    };
  }

  // ---------------------------------------------------------------- perp accounting

  markPx(coin: string): bigint {
    const m = this.marketByCoin(coin);
    return m ? this.midPx(m) : 0n;
  }

  unrealizedPnl(coin: string, szi: bigint, entryNtl: bigint): bigint {
    const value = mulDivDown(absBig(szi), this.markPx(coin), UNIT);
    return szi >= 0n ? value - entryNtl : entryNtl - value;
  }

  accountValue(user: UserState): bigint {
    let v = user.perpUsd;
    for (const [coin, p] of Object.entries(user.positions)) v += this.unrealizedPnl(coin, p.szi, p.entryNtl);
    return v;
  }

  positionMargin(user: UserState): bigint {
    let total = 0n;
    for (const [coin, p] of Object.entries(user.positions)) {
      const m = this.marketByCoin(coin);
      if (!m || p.szi === 0n) continue;
      total += mulDivUp(mulDivUp(absBig(p.szi), this.markPx(coin), UNIT), 1n, BigInt(m.maxLeverage));
    }
    return total;
  }

  restingMargin(address: Address): bigint {
    let total = 0n;
    for (const o of this.restingOrdersOf(address)) if (!this.market(o.asset)!.isSpot) total += o.hold;
    return total;
  }

  withdrawable(address: Address): bigint {
    const u = this.user(address);
    const w = this.accountValue(u) - this.positionMargin(u) - this.restingMargin(address);
    return w > 0n ? w : 0n;
  }

  private applyPerpFill(user: UserState, coin: string, isBuy: boolean, px: bigint, sz: bigint) {
    const pos = (user.positions[coin] ??= { szi: 0n, entryNtl: 0n });
    const start = pos.szi;
    const delta = isBuy ? sz : -sz;
    let closedPnl = 0n;
    let dir: string;
    if (start === 0n || start > 0n === delta > 0n) {
      pos.szi += delta;
      pos.entryNtl += mulDivDown(px, sz, UNIT);
      dir = isBuy ? 'Open Long' : 'Open Short';
    } else {
      const closeSz = minBig(sz, absBig(start));
      const entryPart = mulDivDown(pos.entryNtl, closeSz, absBig(start));
      const closeNtl = mulDivDown(px, closeSz, UNIT);
      closedPnl = start > 0n ? closeNtl - entryPart : entryPart - closeNtl;
      pos.entryNtl -= entryPart;
      pos.szi += isBuy ? closeSz : -closeSz;
      const rest = sz - closeSz;
      if (rest > 0n) {
        pos.szi = isBuy ? rest : -rest;
        pos.entryNtl = mulDivDown(px, rest, UNIT);
        dir = start > 0n ? 'Long > Short' : 'Short > Long';
      } else {
        dir = start > 0n ? 'Close Long' : 'Close Short';
      }
      user.perpUsd += closedPnl;
    }
    if (pos.szi === 0n) delete user.positions[coin];
    return { start, dir, closedPnl };
  }

  // ---------------------------------------------------------------- books

  restingOrdersOf(address: Address): Order[] {
    const out: Order[] = [];
    for (const book of Object.values(this.state.books)) {
      for (const oid of [...book.bids, ...book.asks]) {
        const o = this.state.orders[String(oid)]!;
        if (o.user === address) out.push(o);
      }
    }
    return out;
  }

  bestPx(asset: number, side: 'bids' | 'asks'): bigint | null {
    const oid = this.state.books[String(asset)]![side][0];
    return oid === undefined ? null : this.state.orders[String(oid)]!.limitPx;
  }

  midPx(m: Market): bigint {
    const bid = this.bestPx(m.asset, 'bids');
    const ask = this.bestPx(m.asset, 'asks');
    if (bid !== null && ask !== null) return (bid + ask) / 2n;
    return m.mid;
  }

  private insertResting(o: Order): void {
    const book = this.state.books[String(o.asset)]!;
    const side = o.isBuy ? book.bids : book.asks;
    const better = (p: bigint) => (o.isBuy ? o.limitPx > p : o.limitPx < p);
    let i = side.findIndex((oid) => better(this.state.orders[String(oid)]!.limitPx));
    if (i < 0) i = side.length;
    side.splice(i, 0, o.oid);
  }

  private removeResting(o: Order): void {
    const book = this.state.books[String(o.asset)]!;
    const side = o.isBuy ? book.bids : book.asks;
    const i = side.indexOf(o.oid);
    if (i >= 0) side.splice(i, 1);
  }

  private holdFor(o: Order, m: Market): { amount: bigint; token: number | null } {
    if (!m.isSpot) return { amount: mulDivUp(mulDivUp(o.limitPx, o.sz, UNIT), 1n, BigInt(m.maxLeverage)), token: null };
    return o.isBuy ? { amount: mulDivUp(o.limitPx, o.sz, UNIT), token: m.quoteToken } : { amount: o.sz, token: m.baseToken };
  }

  private applyHold(o: Order, m: Market): void {
    const h = this.holdFor(o, m);
    o.hold = h.amount;
    o.holdToken = h.token;
    if (h.token !== null) this.spotBalance(this.user(o.user), h.token).hold += h.amount;
  }

  private releaseHold(o: Order): void {
    if (o.holdToken !== null) this.spotBalance(this.user(o.user), o.holdToken).hold -= o.hold;
    o.hold = 0n;
    o.holdToken = null;
  }

  /** Takes a resting order off the book, releasing its hold. */
  private finishResting(o: Order, status: OrderStatus, now: number): void {
    this.removeResting(o);
    this.releaseHold(o);
    o.status = status;
    o.statusTimestamp = now;
    this.orderUpdated(o);
    // Nobody asks about the crowd's orders: forgetting them keeps the persisted state small.
    if (this.isHouse(o.user)) delete this.state.orders[String(o.oid)];
  }

  // ---------------------------------------------------------------- orders

  /**
   * Places one order for `user` (already authorised). `fillFraction` (from a partialFill fault)
   * caps how much of it may fill.
   */
  placeOrder(
    address: Address,
    wire: OrderWire,
    builder: { b: Address; f: number } | null,
    hash: `0x${string}`,
    fillFraction: bigint | null,
    touched: Set<number>,
  ): OrderStatusReply {
    const now = this.now();
    const m = this.market(wire.a);
    if (!m) return { error: orderError(VenueErrors.invalidAsset, wire.a) };
    if (!('limit' in wire.t)) return { error: orderError(VenueErrors.trigger, m.asset) };
    const tif = wire.t.limit.tif;
    const px = priceOnGrid(wire.p, m.szDecimals, m.isSpot);
    if (px === null) return { error: orderError(VenueErrors.invalidPrice, m.asset) };
    const sz = sizeOnGrid(wire.s, m.szDecimals);
    if (sz === null) return { error: orderError(VenueErrors.invalidSize, m.asset) };
    const cloid = wire.c ? (wire.c.toLowerCase() as `0x${string}`) : null;
    const isLiquidity = this.isHouse(address);

    const order: Order = {
      oid: this.state.nextOid++, user: address, asset: m.asset, coin: m.coin, isBuy: wire.b, limitPx: px, sz, origSz: sz,
      cloid, tif, reduceOnly: wire.r, timestamp: now, status: 'open', statusTimestamp: now, builder, hold: 0n, holdToken: null,
    };
    const record = (status: OrderStatus, error: string): OrderStatusReply => {
      order.status = status;
      order.statusTimestamp = now;
      if (!isLiquidity) this.remember(order);
      return { error: orderError(error, m.asset) };
    };

    if (mulDivDown(px, sz, UNIT) < this.state.minOrderValue && !wire.r) return record('minTradeNtlRejected', VenueErrors.minValue);
    const u = this.user(address);
    if (wire.r && !m.isSpot) {
      const pos = u.positions[m.coin]?.szi ?? 0n;
      if (pos === 0n || pos > 0n === wire.b) return record('rejected', VenueErrors.reduceOnly);
    }
    const oppSide = wire.b ? 'asks' : 'bids';
    const best = this.bestPx(m.asset, oppSide);
    const crosses = best !== null && (wire.b ? best <= px : best >= px);
    if (tif === 'Alo' && crosses) {
      const bid = this.bestPx(m.asset, 'bids');
      const ask = this.bestPx(m.asset, 'asks');
      return record('badAloPxRejected', `${VenueErrors.postOnlyWouldMatch}, bbo was ${bid === null ? '' : formatUnits(bid)}@${ask === null ? '' : formatUnits(ask)}`);
    }
    if (!isLiquidity) {
      if (!m.isSpot) {
        const pos = u.positions[m.coin]?.szi ?? 0n;
        const opposing = pos !== 0n && pos > 0n !== wire.b ? absBig(pos) : 0n;
        const increase = sz > opposing ? sz - opposing : 0n;
        const need = mulDivUp(mulDivUp(px, increase, UNIT), 1n, BigInt(m.maxLeverage));
        const available = this.accountValue(u) - this.positionMargin(u) - this.restingMargin(address);
        if (need > 0n && available < need) return record('perpMarginRejected', VenueErrors.margin);
      } else {
        const token = wire.b ? m.quoteToken : m.baseToken;
        const needed = wire.b ? mulDivUp(px, sz, UNIT) : sz;
        const bal = this.spotBalance(u, token);
        if (bal.total - bal.hold < needed) return record('insufficientSpotBalanceRejected', VenueErrors.spotBalance);
      }
    }

    // Match against the opposite side, best price first, then time.
    const cap = fillFraction === null ? sz : roundSizeDown(mulDivDown(sz, fillFraction, UNIT), m.szDecimals);
    let filled = 0n;
    let filledNtl = 0n;
    const book = this.state.books[String(m.asset)]!;
    const opp = book[oppSide];
    while (order.sz > 0n && filled < cap && opp.length > 0) {
      const maker = this.state.orders[String(opp[0]!)]!;
      if (wire.b ? maker.limitPx > px : maker.limitPx < px) break;
      if (maker.user === address) {
        this.finishResting(maker, 'selfTradeCanceled', now);
        continue;
      }
      const q = minBig(minBig(order.sz, maker.sz), cap - filled);
      this.trade(m, maker, order, maker.limitPx, q, hash, now);
      if (maker.user === this.state.liquidityAddress) touched.add(m.asset);
      filled += q;
      filledNtl += mulDivDown(maker.limitPx, q, UNIT);
    }

    const summary = (): OrderStatusReply => ({
      filled: {
        totalSz: formatUnitsFixed(filled),
        avgPx: formatUnitsFixed(mulDivDown(filledNtl, UNIT, filled)),
        oid: order.oid,
        ...(cloid ? { cloid } : {}),
      },
    });
    if (tif === 'Ioc' || tif === 'FrontendMarket') {
      if (filled === 0n) return record('iocCancelRejected', VenueErrors.iocNoMatch);
      order.status = 'filled';
      order.statusTimestamp = now;
      this.remember(order);
      return summary();
    }
    if (order.sz === 0n) {
      order.status = 'filled';
      this.remember(order);
      return summary();
    }
    this.remember(order);
    this.applyHold(order, m);
    this.insertResting(order);
    return { resting: { oid: order.oid, ...(cloid ? { cloid } : {}) } };
  }

  private remember(o: Order): void {
    this.state.orders[String(o.oid)] = o;
    if (o.cloid) this.state.cloids[`${o.user}:${o.cloid}`] = o.oid;
    this.orderUpdated(o);
  }

  private trade(m: Market, maker: Order, taker: Order, px: bigint, q: bigint, hash: `0x${string}`, now: number): void {
    const tid = this.state.nextTid++;
    this.releaseHold(maker);
    for (const [o, crossed] of [[maker, false], [taker, true]] as const) {
      const u = this.user(o.user);
      const fees = this.state.fees;
      const rate = BigInt(m.isSpot ? (crossed ? fees.spotTakerTenthBp : fees.spotMakerTenthBp) : crossed ? fees.perpTakerTenthBp : fees.perpMakerTenthBp);
      const ntl = mulDivDown(px, q, UNIT);
      let fee: bigint;
      let builderFee = 0n;
      let startPosition: bigint;
      let dir: string;
      let closedPnl = 0n;
      let feeToken: string;
      if (!m.isSpot) {
        fee = mulDivUp(ntl, rate, TENTH_BP);
        if (o.builder) builderFee = mulDivUp(ntl, BigInt(o.builder.f), TENTH_BP);
        const r = this.applyPerpFill(u, m.coin, o.isBuy, px, q);
        u.perpUsd -= fee + builderFee;
        if (o.builder) this.user(o.builder.b).perpUsd += builderFee;
        startPosition = r.start;
        dir = r.dir;
        closedPnl = r.closedPnl;
        feeToken = 'USDC';
      } else {
        const base = this.spotBalance(u, m.baseToken);
        const quote = this.spotBalance(u, m.quoteToken);
        startPosition = base.total;
        const received = o.isBuy ? q : ntl;
        fee = mulDivUp(received, rate, TENTH_BP);
        if (o.builder) builderFee = mulDivUp(received, BigInt(o.builder.f), TENTH_BP);
        if (o.isBuy) {
          quote.total -= ntl;
          base.total += q - fee - builderFee;
        } else {
          base.total -= q;
          quote.total += ntl - fee - builderFee;
        }
        const receivedToken = o.isBuy ? m.baseToken : m.quoteToken;
        if (o.builder) this.spotBalance(this.user(o.builder.b), receivedToken).total += builderFee;
        dir = o.isBuy ? 'Buy' : 'Sell';
        feeToken = this.state.spotTokens[receivedToken]!.name;
      }
      const fill: FillRecord = {
        coin: m.coin, px: formatUnitsFixed(px), sz: formatUnitsFixed(q), side: o.isBuy ? 'B' : 'A', time: now,
        startPosition: formatUnitsFixed(startPosition), dir, closedPnl: formatUnitsFixed(closedPnl), hash, oid: o.oid, crossed,
        fee: formatUnitsFixed(fee), ...(builderFee > 0n ? { builderFee: formatUnitsFixed(builderFee) } : {}), tid,
        ...(o.cloid ? { cloid: o.cloid } : {}), feeToken, twapId: null,
      };
      // The crowd's own fills are not kept (nobody reads them; the state stays small).
      if (!this.isHouse(o.user)) {
        u.fills.push(fill);
        this.onPush?.({ channel: 'userFills', user: lower(o.user), item: fill });
        if (u.fills.length > MAX_FILLS_KEPT) u.fills.splice(0, u.fills.length - MAX_FILLS_KEPT);
      }
      o.sz -= q;
    }
    if (maker.sz === 0n) this.finishResting(maker, 'filled', now);
    else this.applyHold(maker, m);
  }

  /** Cancels a resting order of `address`; false when there is none. */
  cancel(address: Address, asset: number, oid: number): boolean {
    const o = this.state.orders[String(oid)];
    if (!o || o.user !== address || o.asset !== asset || o.status !== 'open') return false;
    this.finishResting(o, 'canceled', this.now());
    return true;
  }

  cancelByCloid(address: Address, asset: number, cloid: string): boolean {
    const oid = this.state.cloids[`${address}:${cloid.toLowerCase()}`];
    return oid !== undefined && this.cancel(address, asset, oid);
  }

  orderByOidOrCloid(address: Address, ref: number | string): Order | undefined {
    const oid = typeof ref === 'number' ? ref : this.state.cloids[`${address}:${ref.toLowerCase()}`];
    const o = oid === undefined ? undefined : this.state.orders[String(oid)];
    return o && o.user === address ? o : undefined;
  }

  // ---------------------------------------------------------------- liquidity

  /** Moves every walking mid to the current sim time; true when anything changed. `defaultWalk`: a market's walk when its liquidity names none. */
  advanceWalks(defaultWalk: (m: Market) => LiquidityConfig['walk'] = () => null): boolean {
    let changed = false;
    const now = this.now();
    for (const m of Object.values(this.state.markets)) {
      const walk = m.liquidity?.walk ?? defaultWalk(m);
      if (!walk || walk.intervalMs <= 0) continue;
      const target = Math.floor(now / walk.intervalMs);
      if (m.walkStep === 0 || target - m.walkStep > MAX_WALK_STEPS_PER_CALL) m.walkStep = Math.max(0, target - 1);
      if (target <= m.walkStep) continue;
      for (let k = m.walkStep + 1; k <= target; k++) {
        const up = createHash('sha256').update(`${this.state.seed}:${m.coin}:${k}`).digest()[0]! % 2 === 0;
        const factor = 10_000n + (up ? 1n : -1n) * BigInt(walk.stepBps);
        m.mid = roundPriceToGrid(mulDivDown(m.mid, factor, 10_000n), m.szDecimals, m.isSpot, 'down');
      }
      m.walkStep = target;
      this.refreshLiquidity(m);
      changed = true;
    }
    return changed;
  }

  /** Replaces the liquidity account's levels of one market around its mid. */
  refreshLiquidity(m: Market): void {
    const lp = this.state.liquidityAddress;
    const book = this.state.books[String(m.asset)]!;
    for (const oid of [...book.bids, ...book.asks]) {
      const o = this.state.orders[String(oid)]!;
      if (o.user === lp) this.finishResting(o, 'canceled', this.now());
    }
    const cfg = m.liquidity;
    if (!cfg || m.mid <= 0n) return;
    const levelNtl = parseUnits(cfg.levelNotionalUsd) ?? 0n;
    const bestUserAsk = this.bestPx(m.asset, 'asks');
    const bestUserBid = this.bestPx(m.asset, 'bids');
    for (let i = 0; i < cfg.levels; i++) {
      const bps = BigInt(cfg.halfSpreadBps + i * cfg.stepBps);
      for (const isBuy of [true, false]) {
        const raw = mulDivDown(m.mid, isBuy ? 10_000n - bps : 10_000n + bps, 10_000n);
        const px = roundPriceToGrid(raw, m.szDecimals, m.isSpot, isBuy ? 'down' : 'up');
        if (px <= 0n) continue;
        // Never trade on a refresh: skip a level that would cross a user's resting order.
        if (isBuy ? bestUserAsk !== null && px >= bestUserAsk : bestUserBid !== null && px <= bestUserBid) continue;
        const sz = roundSizeDown(mulDivDown(levelNtl, UNIT, px), m.szDecimals);
        if (sz <= 0n) continue;
        const now = this.now();
        const o: Order = {
          oid: this.state.nextOid++, user: lp, asset: m.asset, coin: m.coin, isBuy, limitPx: px, sz, origSz: sz, cloid: null,
          tif: 'Alo', reduceOnly: false, timestamp: now, status: 'open', statusTimestamp: now, builder: null, hold: 0n, holdToken: null,
        };
        this.state.orders[String(o.oid)] = o;
        this.applyHold(o, m);
        this.insertResting(o);
      }
    }
  }

  /** Gives the liquidity account effectively unlimited funds and lays out every market's levels. */
  seedLiquidity(): void {
    const lp = this.user(this.state.liquidityAddress);
    const plenty = 10n ** 15n * UNIT;
    lp.perpUsd = plenty;
    this.state.spotTokens.forEach((_t, i) => (this.spotBalance(lp, i).total = plenty));
    for (const m of Object.values(this.state.markets)) this.refreshLiquidity(m);
  }

  // ---------------------------------------------------------------- views

  l2Book(m: Market) {
    const book = this.state.books[String(m.asset)]!;
    const levels = (oids: number[]) => {
      const out: { px: string; sz: string; n: number }[] = [];
      let cur: { px: bigint; sz: bigint; n: number } | null = null;
      for (const oid of oids) {
        const o = this.state.orders[String(oid)]!;
        if (cur && cur.px === o.limitPx) {
          cur.sz += o.sz;
          cur.n += 1;
        } else {
          if (cur) out.push({ px: formatUnitsFixed(cur.px), sz: formatUnitsFixed(cur.sz), n: cur.n });
          if (out.length >= L2_LEVELS) return out;
          cur = { px: o.limitPx, sz: o.sz, n: 1 };
        }
      }
      if (cur && out.length < L2_LEVELS) out.push({ px: formatUnitsFixed(cur.px), sz: formatUnitsFixed(cur.sz), n: cur.n });
      return out;
    };
    return { coin: m.coin, time: this.now(), levels: [levels(book.bids), levels(book.asks)] };
  }

  frontendOrder(o: Order) {
    return {
      coin: o.coin, side: o.isBuy ? 'B' : 'A', limitPx: formatUnitsFixed(o.limitPx), sz: formatUnitsFixed(o.sz), oid: o.oid,
      timestamp: o.timestamp, origSz: formatUnitsFixed(o.origSz), triggerCondition: 'N/A', isTrigger: false, triggerPx: '0.0',
      children: [], isPositionTpsl: false, reduceOnly: o.reduceOnly, orderType: 'Limit', tif: o.tif, cloid: o.cloid,
    };
  }
}
