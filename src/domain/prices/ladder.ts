/**
 * A maker's indicative price ladder (DESIGN.md section 4: `bids` and `asks` are arrays of
 * `[price, size]`; price in the quote token per one base unit, size in base units). Validation is
 * strict because the aggregate is shown to every session: positive decimals, bids strictly
 * descending, asks strictly ascending, bounded depth, and a maker's own book not crossed.
 *
 * Only a maker's best level can reach top of book (its other levels are strictly worse), so what
 * the ladder contributes downstream is its `MakerTop`.
 */
import { invalidField, invalidRequest, type FieldError } from '../errors.ts';
import { parseAmount } from '../money/decimal.ts';
import { checkLadderBand, type PriceBand } from './price-band.ts';

/** Prices carry up to 18 fractional digits; they are scaled by 10^18 for comparison. */
export const PRICE_DECIMALS = 18;
export const MAX_LADDER_DEPTH = 50;

export interface Level {
  /** Price scaled by 10^PRICE_DECIMALS. */
  price: bigint;
  /** Size in the base token's smallest unit. */
  size: bigint;
}

export interface MakerTop {
  bid: Level | null;
  ask: Level | null;
}

function parseSide(raw: unknown, side: 'bids' | 'asks', baseDecimals: number, maxDepth: number): Level[] {
  if (!Array.isArray(raw)) throw invalidField(side, 'type', `${side} must be an array of [price, size]`);
  if (raw.length > maxDepth) throw invalidField(side, 'maxItems', `${side} may hold at most ${maxDepth} levels`);
  const levels: Level[] = [];
  const errors: FieldError[] = [];
  raw.forEach((entry: unknown, i) => {
    const field = `${side}[${i}]`;
    if (!Array.isArray(entry) || entry.length !== 2) {
      errors.push({ field, reason: 'type', message: `${field} must be [price, size]` });
      return;
    }
    const price = parseAmount(entry[0], PRICE_DECIMALS, { field: `${field}[0]`, positive: true });
    const size = parseAmount(entry[1], baseDecimals, { field: `${field}[1]`, positive: true });
    const previous = levels[levels.length - 1];
    if (previous && (side === 'bids' ? price >= previous.price : price <= previous.price)) {
      const order = side === 'bids' ? 'strictly descending' : 'strictly ascending';
      errors.push({ field: `${field}[0]`, reason: 'order', message: `${side} prices must be ${order}` });
    }
    levels.push({ price, size });
  });
  if (errors.length > 0) throw invalidRequest(errors, errors[0]!.message);
  return levels;
}

/**
 * Validates a ladder and returns its best bid and best ask; with a band (price-band.ts), every
 * level must lie within it.
 * @throws ServiceError INVALID_REQUEST (shape, order, depth, crossed, outsideBand) or
 *   AMOUNT_OVER_PRECISE (a size finer than the base token, or a price beyond 18 decimals).
 */
export function ladderTop(bids: unknown, asks: unknown, baseDecimals: number, band: PriceBand | null = null, maxDepth = MAX_LADDER_DEPTH): MakerTop {
  const bidLevels = parseSide(bids, 'bids', baseDecimals, maxDepth);
  const askLevels = parseSide(asks, 'asks', baseDecimals, maxDepth);
  const bid = bidLevels[0] ?? null;
  const ask = askLevels[0] ?? null;
  if (bid && ask && bid.price >= ask.price) throw invalidField('bids[0][0]', 'crossed', 'best bid must be below best ask');
  checkLadderBand({ bids: bidLevels, asks: askLevels }, band);
  return { bid, ask };
}
