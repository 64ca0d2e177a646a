/**
 * Strict reading of a pre-signed venue action `{ action, nonce, signature }` as a client sends it.
 * The action is never normalised: what passes is exactly what the client signed. The envelope
 * takes what the venue's own Python SDK sends (DESIGN.md 13): `r` and `s` without their leading
 * zeros (left-padded to 32 bytes here: the same signature), and `vaultAddress: null`,
 * `expiresAfter: null`, which mean absent. A non-null `vaultAddress` is refused, and a non-null
 * `expiresAfter` too (spec rule 3: the venue hashes and enforces it, so the service could not send
 * the order unchanged).
 */
import type { PerpOrderDefect, SignedVenueAction, VenueSignature } from './types.ts';

/** `r` or `s` as clients write it: 0x and at most 64 hex digits (the Python SDK drops leading zeros). */
export const SIGNATURE_PART = /^0x[0-9a-fA-F]{1,64}$/;

/** The signature with `r` and `s` left-padded to 32 bytes, lower case: the form recovery and the venue read. */
export function canonicalSignature(signature: VenueSignature): VenueSignature {
  const pad = (part: string) => `0x${part.slice(2).toLowerCase().padStart(64, '0')}` as `0x${string}`;
  return { r: pad(signature.r), s: pad(signature.s), v: signature.v };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * Checks that `value`'s own keys are exactly `expected` (those in `optional` may be absent) and in
 * that order: the venue hashes the action's msgpack encoding, in which key order is part of the
 * signed bytes (spec rule 1). Reports unknown, missing and out-of-order keys as `shape`.
 */
export function checkKeys(
  value: Record<string, unknown>,
  expected: readonly string[],
  optional: readonly string[],
  field: string,
  defects: PerpOrderDefect[],
): boolean {
  const keys = Object.keys(value);
  let ok = true;
  for (const key of keys) {
    if (!expected.includes(key)) {
      defects.push({ field: `${field}.${key}`, reason: 'shape', message: `unexpected key ${key}` });
      ok = false;
    }
  }
  for (const key of expected) {
    if (!optional.includes(key) && !keys.includes(key)) {
      defects.push({ field: `${field}.${key}`, reason: 'shape', message: `${key} is required` });
      ok = false;
    }
  }
  if (ok) {
    const wanted = expected.filter((key) => keys.includes(key));
    if (wanted.some((key, index) => keys[index] !== key)) {
      defects.push({ field, reason: 'shape', message: `keys must be in the signed order ${wanted.join(', ')} (got ${keys.join(', ')})` });
      ok = false;
    }
  }
  return ok;
}

/** The envelope as sent, or null with defects (`field` is the request path, e.g. `perpTakerOrder`). */
export function readSignedAction(raw: unknown, field: string, defects: PerpOrderDefect[]): SignedVenueAction | null {
  if (!isPlainObject(raw)) {
    defects.push({ field, reason: 'shape', message: 'must be an object { action, nonce, signature }' });
    return null;
  }
  const before = defects.length;
  for (const key of Object.keys(raw)) {
    if (key === 'action' || key === 'nonce' || key === 'signature') continue;
    // The Python SDK sends both, null when unused: absent, as the venue reads them.
    if ((key === 'vaultAddress' || key === 'expiresAfter') && raw[key] === null) continue;
    const message =
      key === 'vaultAddress'
        ? 'vaultAddress is refused: the order must be for the signer\'s own account'
        : key === 'expiresAfter'
          ? 'expiresAfter is refused: the venue drops it, so the signed hash would differ'
          : `unexpected key ${key}`;
    defects.push({ field: `${field}.${key}`, reason: 'shape', message });
  }
  if (!isPlainObject(raw.action)) defects.push({ field: `${field}.action`, reason: 'shape', message: 'action must be an object' });
  const nonce = raw.nonce;
  if (typeof nonce !== 'number' || !Number.isSafeInteger(nonce) || nonce <= 0) {
    defects.push({ field: `${field}.nonce`, reason: 'nonce', message: 'nonce must be a positive integer (unix milliseconds)' });
  }
  const signature = raw.signature;
  if (!isPlainObject(signature)) {
    defects.push({ field: `${field}.signature`, reason: 'shape', message: 'signature must be an object { r, s, v }' });
  } else {
    checkKeys(signature, ['r', 's', 'v'], [], `${field}.signature`, defects);
    for (const part of ['r', 's'] as const) {
      const text = signature[part];
      if (typeof text !== 'string' || !SIGNATURE_PART.test(text)) {
        defects.push({ field: `${field}.signature.${part}`, reason: 'shape', message: `${part} must be 0x plus at most 64 hex characters` });
      }
    }
    if (signature.v !== 27 && signature.v !== 28) {
      defects.push({ field: `${field}.signature.v`, reason: 'shape', message: 'v must be 27 or 28' });
    }
  }
  if (defects.length > before) return null;
  return { action: raw.action, nonce: nonce as number, signature: canonicalSignature(signature as unknown as VenueSignature) };
}

/** The venue accepts a nonce only within (now - pastMs, now + futureMs) of its own clock (types.ts: one day each). */
export function nonceInVenueWindow(nonce: number, now: number, pastMs: number, futureMs: number): boolean {
  return nonce > now - pastMs && nonce < now + futureMs;
}
