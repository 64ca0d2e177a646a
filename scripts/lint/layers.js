/**
 * The layers of `src/` and what each may import (docs/architecture.md). Read by the `rfq/layers`
 * lint rule and by test/docs/architecture.test.ts, so the rule and the map cannot drift apart.
 *
 * Inner to outer: domain -> store -> services -> adapters (api, ws, chain, venue) -> runtime.
 * `client` is the integrator-side SDK: it may use the pure domain and nothing of the service.
 * `net` is outbound HTTP plumbing shared by the chain and venue adapters; it imports nothing else.
 * An inner layer never imports an outer one; adapters never import each other.
 */
export const LAYERS = {
  domain: ['domain'],
  store: ['domain', 'store'],
  services: ['domain', 'store', 'services'],
  api: ['domain', 'store', 'services', 'api'],
  ws: ['domain', 'store', 'services', 'ws'],
  chain: ['domain', 'store', 'services', 'chain', 'net'],
  venue: ['domain', 'store', 'services', 'venue', 'net'],
  net: ['net'],
  client: ['domain', 'client'],
  runtime: '*',
};

/**
 * Outside modules the pure domain may use: pure hashing and signature recovery only (the HMAC of a
 * signed request; EIP-712 hashing and signer recovery of perp orders with viem and the venue SDK,
 * which the project must use instead of its own msgpack). Nothing here does I/O.
 */
export const DOMAIN_PURE_MODULES = ['node:crypto', 'viem', '@nktkas/hyperliquid/signing', '@nktkas/hyperliquid/api/exchange'];
