/**
 * Auction and quote windows (DESIGN.md section 4, "Windows" and "Field-name variants").
 * Request fields arrive in two spellings (`windowMs`/`windowSecs`, `acceptableForMs`/`expiryMs`);
 * both are accepted, one at a time, and turned into the one unit the domain uses.
 * `null` is treated like an omitted field, since JSON clients send either.
 */
import { invalidField } from '../errors.ts';
import type { UnixMillis, UnixSeconds } from './types.ts';

/** The spec's floor for a quote window: 1 second. */
export const MIN_WINDOW_MS = 1000;

function isPresent(value: number | null | undefined): value is number {
  return value !== undefined && value !== null;
}

function requirePositiveInteger(field: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw invalidField(field, 'integer', `${field} must be an integer`);
  if (value <= 0) throw invalidField(field, 'positive', `${field} must be positive`);
}

/**
 * The effective auction window in ms: `windowMs` or `windowSecs * 1000`, clamped to
 * [MIN_WINDOW_MS, maxWindowMs]; omitted means `maxWindowMs`.
 * @throws ServiceError INVALID_REQUEST: both given (`windowMs`, `exclusive`); a value that is not
 *   an integer (`integer`) or not positive (`positive`), reported on the field as sent.
 * @throws RangeError when `maxWindowMs` is not an integer >= MIN_WINDOW_MS (configuration bug).
 */
export function auctionWindowMs(request: { windowMs?: number | null; windowSecs?: number | null }, maxWindowMs: number): number {
  if (!Number.isSafeInteger(maxWindowMs) || maxWindowMs < MIN_WINDOW_MS) {
    throw new RangeError(`maxWindowMs must be an integer >= ${MIN_WINDOW_MS}`);
  }
  const { windowMs, windowSecs } = request;
  if (isPresent(windowMs) && isPresent(windowSecs)) {
    throw invalidField('windowMs', 'exclusive', 'send windowMs or windowSecs, not both');
  }
  let requestedMs: number;
  if (isPresent(windowMs)) {
    requirePositiveInteger('windowMs', windowMs);
    requestedMs = windowMs;
  } else if (isPresent(windowSecs)) {
    requirePositiveInteger('windowSecs', windowSecs);
    // Large values may lose precision past 2^53 ms, but they clamp to maxWindowMs anyway.
    requestedMs = windowSecs * 1000;
  } else {
    return maxWindowMs;
  }
  return Math.min(Math.max(requestedMs, MIN_WINDOW_MS), maxWindowMs);
}

/**
 * `settlementDeadline` (unix SECONDS): `auctionEndsAt` rounded up to the next whole second,
 * plus the operator's headroom. Integer arithmetic only, so it is exact for any safe integer.
 */
export function settlementDeadlineSecs(auctionEndsAt: UnixMillis, settlementHeadroomSecs: number): UnixSeconds {
  if (!Number.isSafeInteger(auctionEndsAt) || auctionEndsAt < 0) throw new RangeError('auctionEndsAt must be a non-negative integer');
  if (!Number.isSafeInteger(settlementHeadroomSecs) || settlementHeadroomSecs < 0) {
    throw new RangeError('settlementHeadroomSecs must be a non-negative integer');
  }
  const remainderMs = auctionEndsAt % 1000;
  const ceilSecs = (auctionEndsAt - remainderMs) / 1000 + (remainderMs > 0 ? 1 : 0);
  return ceilSecs + settlementHeadroomSecs;
}

/**
 * The quote's maker window relative to `receivedAt`: `acceptableForMs` as sent, or the older
 * absolute `expiryMs` converted to `expiryMs - receivedAt`; null when neither is sent (the quote
 * stands until the auction closes). Called on every (re-)submission, since `receivedAt` moves.
 * @throws ServiceError INVALID_REQUEST: both given (`acceptableForMs`, `exclusive`); not an
 *   integer (`integer`); `acceptableForMs` < 1 (`positive`); `expiryMs` at or before
 *   `receivedAt` (`expiryMs`, `expired`).
 */
export function quoteAcceptableForMs(
  request: { acceptableForMs?: number | null; expiryMs?: number | null },
  receivedAt: UnixMillis,
): number | null {
  const { acceptableForMs, expiryMs } = request;
  if (isPresent(acceptableForMs) && isPresent(expiryMs)) {
    throw invalidField('acceptableForMs', 'exclusive', 'send acceptableForMs or expiryMs, not both');
  }
  if (isPresent(acceptableForMs)) {
    requirePositiveInteger('acceptableForMs', acceptableForMs);
    return acceptableForMs;
  }
  if (isPresent(expiryMs)) {
    if (!Number.isSafeInteger(expiryMs)) throw invalidField('expiryMs', 'integer', 'expiryMs must be an integer');
    const relativeMs = expiryMs - receivedAt;
    if (relativeMs <= 0) throw invalidField('expiryMs', 'expired', 'expiryMs is not after the time the quote was received');
    return relativeMs;
  }
  return null;
}
