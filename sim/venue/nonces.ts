// The venue's nonce rule per signer: it keeps the `setSize` highest nonces; a new nonce must be
// unused, above the smallest kept one once the set is full, and within (now - past, now + future).
import type { NonceConfig } from './config.ts';
import { VenueErrors } from './engine.ts';

export function nonceProblem(kept: readonly number[], nonce: number, now: number, config: NonceConfig): string | null {
  if (kept.includes(nonce)) return VenueErrors.duplicateNonce;
  if (kept.length >= config.setSize && nonce <= kept[0]!) return VenueErrors.nonceTooLow;
  if (nonce <= now - config.pastWindowMs) return VenueErrors.nonceTooOld;
  if (nonce >= now + config.futureWindowMs) return VenueErrors.nonceTooNew;
  return null;
}

/** Records an accepted nonce (the list stays ascending and at most `setSize` long). */
export function recordNonce(kept: number[], nonce: number, config: NonceConfig): void {
  let i = kept.findIndex((n) => n > nonce);
  if (i < 0) i = kept.length;
  kept.splice(i, 0, nonce);
  while (kept.length > config.setSize) kept.shift();
}

/** Fills the set with `setSize` nonces ending at `upTo`, so anything signed at or before it is refused. */
export function burnNonces(kept: number[], upTo: number, config: NonceConfig): void {
  for (let k = 0; k < config.setSize; k++) recordNonce(kept, upTo - k, config);
}
