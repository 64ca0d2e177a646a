/**
 * The reference maker's pricing, pure and exact: a reference price that moves (a bounded random
 * walk from a seeded generator), the ladder shown around it, and the legs of a quote on an open
 * RFQ. Prices are bigint "quote units per one whole base token" (for ETH-USDC, USDC micro-units
 * per 1 ETH); amounts are bigint smallest units; decimal strings only via `src/domain/money`.
 */
import { formatAmount, mulDivDown, mulDivUp, parseAmount } from '../../src/domain/money/index.ts';
import { onPerpGrid, type VenueTouch } from '../../src/client/perp-order.ts';

export const BP = 10_000n;

/** mulberry32: a tiny seeded generator, so a demo run (and a test) replays the same walk. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface WalkOptions {
  /** Starting (and centre) price, quote units per whole base token. */
  start: bigint;
  /** Largest move per step, in basis points of the current price. */
  maxStepBp: number;
  /** The walk never leaves start * (1 +- bandBp / 10000). */
  bandBp: number;
}

/**
 * One step of the walk: a whole number of basis points in [-maxStepBp, maxStepBp] drawn from
 * `random` (only an integer count crosses from the generator into bigint), clamped to the band.
 */
export function stepPrice(current: bigint, options: WalkOptions, random: () => number): bigint {
  const span = 2 * options.maxStepBp + 1;
  const moveBp = BigInt(Math.min(span - 1, Math.floor(random() * span)) - options.maxStepBp);
  const moved = moveBp >= 0n ? current + mulDivDown(current, moveBp, BP) : current - mulDivDown(current, -moveBp, BP);
  const low = options.start - mulDivDown(options.start, BigInt(options.bandBp), BP);
  const high = options.start + mulDivDown(options.start, BigInt(options.bandBp), BP);
  return moved < low ? low : moved > high ? high : moved;
}

/** The maker's bid and ask around `mid`, half the spread each side, rounded away from mid. */
export function bidAsk(mid: bigint, spreadBp: number): { bid: bigint; ask: bigint } {
  const half = BigInt(spreadBp);
  return { bid: mulDivDown(mid, 2n * BP - half, 2n * BP), ask: mulDivUp(mid, 2n * BP + half, 2n * BP) };
}

export interface TokenScale {
  symbol: string;
  decimals: number;
}

export interface LadderShape {
  spreadBp: number;
  /** Levels per side; each further level is one more spread away and `levelSize` deep. */
  levels: number;
  /** Size of each level, base token smallest units. */
  levelSize: bigint;
}

/** `[price, size]` decimal strings, best first, as the price-ingest `ladder` frame wants them. */
export function ladder(mid: bigint, shape: LadderShape, base: TokenScale, quote: TokenScale): { bids: Array<[string, string]>; asks: Array<[string, string]> } {
  const bids: Array<[string, string]> = [];
  const asks: Array<[string, string]> = [];
  const size = formatAmount(shape.levelSize, base.decimals);
  for (let i = 1; i <= shape.levels; i++) {
    const { bid, ask } = bidAsk(mid, shape.spreadBp * i);
    // Rounding can collapse neighbouring levels on a cheap token; the ingest wants strict order.
    const lastBid = bids.at(-1)?.[0];
    const lastAsk = asks.at(-1)?.[0];
    const bidText = formatAmount(bid, quote.decimals);
    const askText = formatAmount(ask, quote.decimals);
    if (bid > 0n && bidText !== lastBid) bids.push([bidText, size]);
    if (askText !== lastAsk) asks.push([askText, size]);
  }
  return { bids, asks };
}

export interface RfqToPrice {
  side: 'BUY' | 'SELL';
  /** OpenRfq.baseQty: on a SELL already net of the taker fee, so it is exactly what we buy. */
  baseQty: string;
}

export interface QuoteLegs {
  makerPays: { token: string; amount: string };
  makerReceives: { token: string; amount: string };
}

/**
 * The legs of our quote (a conforming quote, docs/maker-integration.md). BUY (taker buys): we pay the
 * full baseQty of base and receive base * ask of quote, rounded up. SELL (taker sells): we
 * receive baseQty of base and pay base * bid of quote, rounded down. Null when the RFQ is larger
 * than `maxBaseQty` or too small to price (a zero leg).
 */
export function quoteLegs(rfq: RfqToPrice, mid: bigint, spreadBp: number, maxBaseQty: bigint, base: TokenScale, quote: TokenScale): QuoteLegs | null {
  const baseUnits = parseAmount(rfq.baseQty, base.decimals, { field: 'baseQty', positive: true });
  if (baseUnits > maxBaseQty) return null;
  const { bid, ask } = bidAsk(mid, spreadBp);
  const unit = 10n ** BigInt(base.decimals);
  const quoteUnits = rfq.side === 'BUY' ? mulDivUp(baseUnits, ask, unit) : mulDivDown(baseUnits, bid, unit);
  if (quoteUnits === 0n) return null;
  const baseLeg = { token: base.symbol, amount: formatAmount(baseUnits, base.decimals) };
  const quoteLeg = { token: quote.symbol, amount: formatAmount(quoteUnits, quote.decimals) };
  return rfq.side === 'BUY' ? { makerPays: baseLeg, makerReceives: quoteLeg } : { makerPays: quoteLeg, makerReceives: baseLeg };
}

/**
 * Our perp order price for an RFQ, from the venue's book (USDC micro-units per coin, on the
 * venue's price grid). The RFQ's side is the taker's: on a BUY we sell (ask), on a SELL we buy
 * (bid), `spreadBp / 2` from the book's mid, but never behind the book's own touch, so that the
 * taker's IOC meets our order rather than the book's; and strictly inside the book, since an ALO
 * that would cross is refused. Null when the book is one-sided or leaves no grid price inside.
 */
export function perpMakerPrice(side: 'BUY' | 'SELL', touch: VenueTouch, spreadBp: number, szDecimals: number): bigint | null {
  const { bestBid, bestAsk } = touch;
  if (bestBid === null || bestAsk === null) return null;
  const { bid, ask } = bidAsk((bestBid + bestAsk) / 2n, spreadBp);
  const price = side === 'BUY'
    ? minBig(onPerpGrid(ask, szDecimals, 'up'), onPerpGrid(bestAsk - 1n, szDecimals, 'down'))
    : maxBig(onPerpGrid(bid, szDecimals, 'down'), onPerpGrid(bestBid + 1n, szDecimals, 'up'));
  return price > bestBid && price < bestAsk ? price : null;
}

/** Base sizes of a perp part are worked at this scale: finer than any venue size grid. */
const PART_DECIMALS = 18;

export interface PerpSweepPartOptions {
  /** The share of the RFQ we quote, basis points. */
  shareBp: number;
  /** The most we quote, coins (decimal string). */
  maxBaseQty: string;
  /** The coin's size decimals at the venue: a part is a whole number of its size steps. */
  szDecimals: number;
  /** Our order price, USDC micro-units per coin. */
  price: bigint;
  /** The venue's minimum order value, USDC micro-units. */
  minNotional: bigint;
}

/**
 * Our part of a perp SWEEP RFQ of `baseQty` coins: `shareBp` of it, capped at `maxBaseQty`,
 * rounded down to the venue's size grid, so each of a few makers carries less than the whole of a
 * large RFQ and the last one is cut. A part under the venue's minimum order value at `price`
 * would be refused there, so then we quote the whole RFQ when it fits `maxBaseQty` and is worth
 * an order itself; otherwise nothing (null).
 */
export function perpSweepPart(baseQty: string, o: PerpSweepPartOptions): string | null {
  const whole = parseAmount(baseQty, PART_DECIMALS, { field: 'baseQty', positive: true });
  const cap = parseAmount(o.maxBaseQty, PART_DECIMALS, { field: 'maxBaseQty', positive: true });
  const step = 10n ** BigInt(Math.max(PART_DECIMALS - o.szDecimals, 0));
  const unit = 10n ** BigInt(PART_DECIMALS);
  const worthAnOrder = (units: bigint) => units > 0n && (o.price * units) / unit >= o.minNotional;
  const share = minBig(mulDivDown(whole, BigInt(o.shareBp), BP), cap);
  const part = share - (share % step);
  if (part < whole && worthAnOrder(part)) return formatAmount(part, PART_DECIMALS);
  return whole <= cap && worthAnOrder(whole) ? formatAmount(whole, PART_DECIMALS) : null;
}

const minBig = (a: bigint, b: bigint) => (a < b ? a : b);
const maxBig = (a: bigint, b: bigint) => (a > b ? a : b);
