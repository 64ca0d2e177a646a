/**
 * A perp RFQ's size (DESIGN.md 9.1): `baseQty` in venue size units, on the coin's size grid
 * (`szDecimals` from the cached meta). Finer is AMOUNT_OVER_PRECISE with `maxDecimals` =
 * `szDecimals`, whatever the internal scale.
 */
import { ServiceError } from '../../domain/errors.ts';
import { parseAmount } from '../../domain/money/index.ts';
import type { Instrument } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { perpCoin } from './venue-market.ts';

/** `field`: `baseQty`, or a SWEEP's `minFillQty`, which lies on the same grid. */
export async function parsePerpBaseQty(deps: ServiceDeps, instrument: Instrument, text: string, field = 'baseQty'): Promise<bigint> {
  const coin = await perpCoin(deps, instrument);
  const overPrecise = () =>
    new ServiceError('AMOUNT_OVER_PRECISE', `${field} has more than ${coin.szDecimals} decimal places (the venue's size grid for ${instrument.base})`, {
      field,
      maxDecimals: coin.szDecimals,
    });
  let baseQty: bigint;
  try {
    baseQty = parseAmount(text, instrument.baseDecimals, { field, positive: true });
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'AMOUNT_OVER_PRECISE') throw overPrecise();
    throw error;
  }
  const step = 10n ** BigInt(Math.max(instrument.baseDecimals - coin.szDecimals, 0));
  if (baseQty % step !== 0n) throw overPrecise();
  return baseQty;
}
