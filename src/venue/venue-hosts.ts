/**
 * The venue's own API hosts and the network each serves. A `VENUE_URL` on one of them must agree
 * with `RFQ_VENUE_NETWORK`: signatures name the network (`source` `a` or `b`), so a mismatch makes
 * every signer a stranger to the venue. Other hosts (a proxy, the simulator) are not checked.
 */
import type { VenueNetwork } from '../domain/perp/types.ts';

export const KNOWN_VENUE_HOSTS: Readonly<Record<string, VenueNetwork>> = Object.freeze({
  'api.hyperliquid.xyz': 'mainnet',
  'api.hyperliquid-testnet.xyz': 'testnet',
});

/** Null when they agree (or the host is not one of the venue's); else what is wrong. */
export function venueHostMismatch(url: string, network: VenueNetwork): string | null {
  const host = new URL(url).hostname.toLowerCase();
  const serves = KNOWN_VENUE_HOSTS[host];
  if (serves === undefined || serves === network) return null;
  return `${host} is the venue's ${serves} API, but RFQ_VENUE_NETWORK is ${network}`;
}
