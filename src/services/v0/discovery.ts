/**
 * `getTokens` and `getMarkets`: the venue's spot tokens as they are, and its pairs with both tokens
 * known; plus the market resolution `createOrder` uses.
 */
import { ServiceError } from '../../domain/errors.ts';
import { VenueUnavailableError, type VenueSpotMeta, type VenueSpotPair, type VenueSpotToken, type V0Venue } from './venue-port.ts';

export interface V0Market {
  name: string;
  baseToken: string;
  quoteToken: string;
  baseTokenIndex: number;
  quoteTokenIndex: number;
}

export async function venueMeta(venue: V0Venue): Promise<VenueSpotMeta> {
  try {
    return await venue.spotMeta();
  } catch (error) {
    if (error instanceof VenueUnavailableError) throw new ServiceError('SERVICE_UNAVAILABLE', 'the venue cannot be reached');
    throw error;
  }
}

export function marketsOf(meta: VenueSpotMeta): V0Market[] {
  const byIndex = new Map(meta.tokens.map((t) => [t.index, t]));
  const markets: V0Market[] = [];
  for (const pair of meta.universe) {
    const base = byIndex.get(pair.tokens[0]);
    const quote = byIndex.get(pair.tokens[1]);
    if (!base || !quote) continue;
    markets.push({ name: `${base.name}/${quote.name}`, baseToken: base.name, quoteToken: quote.name, baseTokenIndex: base.index, quoteTokenIndex: quote.index });
  }
  return markets;
}

export interface ResolvedMarket {
  pair: VenueSpotPair;
  base: VenueSpotToken;
  quote: VenueSpotToken;
  /** The venue's asset id for a spot pair: 10000 + pair index. */
  asset: number;
}

export function resolveMarket(meta: VenueSpotMeta, baseToken: string, quoteToken: string): ResolvedMarket | null {
  const byIndex = new Map(meta.tokens.map((t) => [t.index, t]));
  for (const pair of meta.universe) {
    const base = byIndex.get(pair.tokens[0]);
    const quote = byIndex.get(pair.tokens[1]);
    if (base?.name === baseToken && quote?.name === quoteToken) return { pair, base, quote, asset: 10_000 + pair.index };
  }
  return null;
}
