/**
 * The arithmetic of a maker's scorecard (DESIGN.md section 15), exact in bigint until the last
 * step: distances in basis points to two decimals, and nearest-rank percentiles.
 */
import type { Side } from './types.ts';

/** Hundredths of a basis point per unit of ratio. */
const CENTI_BPS = 1_000_000n;

function centiBpsToNumber(value: bigint): number {
  return Number(value) / 100;
}

/** `numerator / denominator` in basis points, truncated toward zero to 0.01 bp. */
function ratioBps(numerator: bigint, denominator: bigint): number {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  return centiBpsToNumber((numerator * CENTI_BPS) / denominator);
}

/**
 * How far a losing quote was from the winner, in bp of the winner's price (positive: worse for the
 * taker). Both quotes move the same base, so their quote-token legs compare directly: on a BUY the
 * maker receives (more is worse), on a SELL it pays (less is worse).
 */
export function lostByBps(side: Side, mineQuoteLeg: bigint, winnerQuoteLeg: bigint): number {
  return side === 'BUY' ? ratioBps(mineQuoteLeg - winnerQuoteLeg, winnerQuoteLeg) : ratioBps(winnerQuoteLeg - mineQuoteLeg, winnerQuoteLeg);
}

/**
 * The market's move between two mid prices, in bp of the first, signed positive when it moved in
 * the maker's favour: on a BUY RFQ the maker sold base at a fixed price, so a fall favours it; on a
 * SELL it bought, so a rise does.
 */
export function marketMoveBps(side: Side, midAtSelection: bigint, midLater: bigint): number {
  return side === 'BUY' ? ratioBps(midAtSelection - midLater, midAtSelection) : ratioBps(midLater - midAtSelection, midAtSelection);
}

/** The nearest-rank percentile `p` (0 < p <= 100) of `values`; null when there are none. */
export function nearestRank(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
