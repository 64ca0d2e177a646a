/**
 * A perp SWEEP (DESIGN.md section 14, "Perp"): one maker ALO per selected quote at its own price,
 * then one taker IOC for the selected size at the worst selected price. Pure: the taker's order
 * terms a selection asks for, the backups behind it, how a refused leg is refilled from them, and
 * how the taker's fill is spread over the legs.
 */
import { formatAmount } from '../money/index.ts';
import { compareSweepQuotes, conformsToSweep, quoteBase, quoteQuoteAmount, type SweepQuote, type SweepTerms } from '../rfq/sweep-selection.ts';
import type { Side, UnixMillis } from '../rfq/types.ts';
import { expectedTakerSizeAndPrice } from './taker-order.ts';
import { toUnits } from './venue-decimals.ts';

/** Prices are compared at this scale: finer than any venue price (perp at most 6 decimals). */
const PRICE_SCALE = 8;

export interface PerpDecimals {
  baseDecimals: number;
  quoteDecimals: number;
  /** The coin's size decimals at the venue (`meta.universe[a].szDecimals`). */
  szDecimals: number;
}

/** The venue's size step in base units: one unit of the coin's last size decimal. */
export function perpBaseStep(d: Pick<PerpDecimals, 'baseDecimals' | 'szDecimals'>): bigint {
  return 10n ** BigInt(Math.max(d.baseDecimals - d.szDecimals, 0));
}

/** A quote's two legs' amounts, in smallest units. */
export interface LegAmounts {
  makerPays: { amount: bigint };
  makerReceives: { amount: bigint };
}

/** The price of a quote's own maker order (its quote leg over its base leg, as the maker signed it). */
export function makerOrderPrice(side: Side, quote: LegAmounts, d: PerpDecimals): string | null {
  return expectedTakerSizeAndPrice({ side, legs: { makerPays: quote.makerPays.amount, makerReceives: quote.makerReceives.amount }, ...d, assetIndex: 0, builder: null }).p;
}

/** Negative when price `a` is better for the taker than `b` (BUY lower, SELL higher). */
function compareForTaker(side: Side, a: string, b: string): number {
  const x = toUnits(a, PRICE_SCALE)!;
  const y = toUnits(b, PRICE_SCALE)!;
  const d = x < y ? -1 : x > y ? 1 : 0;
  return side === 'BUY' ? d : -d;
}

/**
 * The `s` and `p` the taker's IOC must carry for a selection: `s` the selected base (the sum of
 * the legs, on the size grid by construction), `p` the worst of the legs' maker prices, so that
 * the IOC crosses every selected maker order and nothing beyond the worst of them.
 */
export function perpSweepTakerTerms(side: Side, legs: readonly { baseQty: bigint; quote: LegAmounts }[], d: PerpDecimals): { s: string; p: string | null; problem: string | null } {
  const total = legs.reduce((sum, leg) => sum + leg.baseQty, 0n);
  const s = formatAmount(total, d.baseDecimals);
  if (legs.length === 0 || total <= 0n) return { s, p: null, problem: 'the selection is empty' };
  let worst: string | null = null;
  for (const leg of legs) {
    const p = makerOrderPrice(side, leg.quote, d);
    if (p === null) return { s, p: null, problem: 'a selected quote gives no valid maker price' };
    if (worst === null || compareForTaker(side, p, worst) > 0) worst = p;
  }
  return { s, p: worst, problem: null };
}

/** True when a taker IOC at `takerPx` crosses this quote's maker order (BUY: its price <= p; SELL: >= p). */
export function crossesSweepTakerPrice(side: Side, quote: Pick<SweepQuote, 'makerPays' | 'makerReceives'>, takerPx: string, d: PerpDecimals): boolean {
  const p = toUnits(takerPx, PRICE_SCALE);
  const base = quoteBase(side, quote);
  if (p === null || base <= 0n) return false;
  // quoteLeg / 10^qd / (base / 10^bd) against p / 10^scale, multiplied out.
  const makerSide = quoteQuoteAmount(side, quote) * 10n ** BigInt(d.baseDecimals) * 10n ** BigInt(PRICE_SCALE);
  const takerSide = p * base * 10n ** BigInt(d.quoteDecimals);
  return side === 'BUY' ? makerSide <= takerSide : makerSide >= takerSide;
}

/** A quote waiting behind a perp sweep, ready to replace a leg whose maker order does not rest. */
export interface SweepBackup {
  quoteId: string;
  /** Its whole base, in base units (decimal integer text: the execution's state is JSON). */
  baseQty: string;
  allOrNone: boolean;
}

/**
 * The backups of a perp sweep: the other quotes that conform to the sweep and that the taker's IOC
 * at `takerPx` also crosses, in sweep rank order (best per-unit price, then time).
 */
export function rankSweepBackups<Q extends SweepQuote>(terms: SweepTerms, quotes: readonly Q[], selected: ReadonlySet<string>, takerPx: string, d: PerpDecimals, now: UnixMillis): SweepBackup[] {
  return quotes
    .filter((q) => !selected.has(q.quoteId) && conformsToSweep(terms, q, now) && crossesSweepTakerPrice(terms.side, q, takerPx, d))
    .sort((a, b) => compareSweepQuotes(terms, a, b))
    .map((q) => ({ quoteId: q.quoteId, baseQty: quoteBase(terms.side, q).toString(), allOrNone: q.allOrNone }));
}

/** A leg of a perp sweep as its execution holds it. */
export interface SweepLegPlan {
  quoteId: string;
  /** Base units selected (decimal integer text). */
  baseQty: string;
  cut: boolean;
}

/**
 * Refills `need` base units from the backups, in rank order: whole backups while they fit, then the
 * first divisible one that crosses the remainder cut to it on the size grid; an all-or-none backup
 * that does not fit stays a backup. Answers the legs promoted and the backups left.
 */
export function refillSweepLeg(need: bigint, backups: readonly SweepBackup[], baseStep: bigint): { promoted: SweepLegPlan[]; backups: SweepBackup[] } {
  const promoted: SweepLegPlan[] = [];
  const left: SweepBackup[] = [];
  let remaining = need;
  for (const backup of backups) {
    const base = BigInt(backup.baseQty);
    if (remaining > 0n && base <= remaining) {
      promoted.push({ quoteId: backup.quoteId, baseQty: backup.baseQty, cut: false });
      remaining -= base;
      continue;
    }
    const cut = remaining - (remaining % baseStep);
    if (remaining > 0n && !backup.allOrNone && cut > 0n) {
      promoted.push({ quoteId: backup.quoteId, baseQty: cut.toString(), cut: true });
      remaining -= cut;
      continue;
    }
    left.push(backup);
  }
  return { promoted, backups: left };
}

/**
 * Spreads the taker's fill over the legs whose maker orders rested, in rank order, as the venue
 * matched them: first each leg its own maker order's fill as the venue reports it (capped at the
 * leg's size and at what is left of the taker's fill), then what the taker filled beyond those
 * (a maker's fill unread, or other resting orders met at the same prices) over the legs in rank
 * order up to each leg's size, as the IOC walks the book from the best price. The sum is the
 * taker's fill capped at the legs' total; no leg gets more than its size.
 */
export function spreadPerpSweepFill(legs: readonly { baseQty: bigint; makerFilled: bigint | null }[], takerFilled: bigint): bigint[] {
  let left = takerFilled < 0n ? 0n : takerFilled;
  const got = legs.map((leg) => {
    const own = leg.makerFilled === null || leg.makerFilled < 0n ? 0n : leg.makerFilled;
    const take = [own, leg.baseQty, left].reduce((a, b) => (a < b ? a : b));
    left -= take;
    return take;
  });
  return got.map((taken, i) => {
    const room = legs[i]!.baseQty - taken;
    const more = room < left ? room : left;
    left -= more;
    return taken + more;
  });
}
