/**
 * A sign-in message's nonce is bounded before anything reads or stores it: EIP-4361
 * asks for at least 8 alphanumeric characters and names no maximum, and an unbounded one from an
 * unauthenticated caller became a btree key larger than PostgreSQL's index rows may be (a 500)
 * and unbounded storage. v1's nonces are this service's challenges (a UUID, 32 hex characters);
 * `/v0`'s are the client's own. Pure.
 */
/** Room for viem's `generateSiweNonce` (96 characters) and the other SDKs' shorter ones. */
export const MAX_SIWE_NONCE_LENGTH = 128;

/** Why `nonce` is refused, or null when its length is within bounds. */
export function siweNonceRefusal(nonce: string): string | null {
  return nonce.length > MAX_SIWE_NONCE_LENGTH ? `nonce must be at most ${MAX_SIWE_NONCE_LENGTH} characters` : null;
}
