/**
 * The venue facts a perp instrument needs on the quote path: its coin in `meta.universe` (index
 * and size decimals), read through the venue port's short cache. Venue failures become
 * VENUE_UNAVAILABLE (503), a deployment without a venue NOT_AVAILABLE (503).
 */
import { ServiceError } from '../../domain/errors.ts';
import type { Instrument } from '../../domain/rfq/index.ts';
import type { ServiceDeps } from '../deps.ts';
import { findCoin, type PerpVenue, type VenueCoin } from './venue-port.ts';

export function requireVenue(deps: ServiceDeps): PerpVenue {
  if (!deps.venue) throw new ServiceError('NOT_AVAILABLE', 'this deployment has no perp venue');
  return deps.venue;
}

/** Runs a venue read; any failure of it is VENUE_UNAVAILABLE, never a 500. */
export async function fromVenue<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new ServiceError('VENUE_UNAVAILABLE', `the venue could not be asked for ${what}`, undefined, { cause: error });
  }
}

/** The instrument's venue coin from the (cached) meta; a coin the venue no longer lists is VENUE_COIN_NOT_FOUND. */
export async function perpCoin(deps: ServiceDeps, instrument: Pick<Instrument, 'base' | 'instrumentId'>): Promise<VenueCoin> {
  const venue = requireVenue(deps);
  const meta = await fromVenue('meta', () => venue.meta());
  const coin = findCoin(meta, instrument.base);
  if (coin === null) {
    throw new ServiceError('VENUE_COIN_NOT_FOUND', `${instrument.base} is not a coin in the venue's meta universe`, { base: instrument.base });
  }
  return coin;
}
