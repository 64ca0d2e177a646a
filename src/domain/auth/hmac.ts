/**
 * The HMAC request-signing recipe of DESIGN.md section 4, shared by the server and the client.
 * Canonical string: timestamp, METHOD, path, query (no '?'), body, joined by '\n'.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

export interface CanonicalRequest {
  timestamp: string;
  method: string;
  path: string;
  query: string;
  body: string;
}

export function canonicalString(request: CanonicalRequest): string {
  return [request.timestamp, request.method.toUpperCase(), request.path, request.query, request.body].join('\n');
}

/**
 * What a SIGNATURE_MISMATCH tells the caller so it can find its own mistake: the five lines of the
 * canonical string and what the server took for each from this request. Never the secret, the
 * expected signature or the body itself (its length tells an empty-vs-sent mix-up).
 */
export function canonicalShape(request: CanonicalRequest) {
  return {
    canonical: '<timestamp>\\n<METHOD>\\n<path>\\n<query>\\n<body>',
    lines: [
      'the Service-API-Timestamp header, unix milliseconds',
      'the method, uppercase',
      'the path as sent, without the query',
      "the query string as sent, without '?', or empty",
      'the raw body as sent, or empty',
    ],
    seen: { timestamp: request.timestamp, method: request.method.toUpperCase(), path: request.path, query: request.query, bodyBytes: Buffer.byteLength(request.body, 'utf8') },
  };
}

/**
 * The secret as a key object, made once per credential: given raw bytes, each `createHmac` first
 * checks whether they are a KeyObject and converts them, about 30 us of 34 per signature on
 * Node 24 (a CPU profile of the re-quote path); given a KeyObject, a signature costs about 4 us.
 */
export function signingKey(secretBase64: string): KeyObject {
  return createSecretKey(Buffer.from(secretBase64, 'base64'));
}

/** base64(HMAC-SHA256(base64decode(secret), canonical)); `secret` may be prepared by `signingKey`. */
export function signCanonical(secret: string | KeyObject, canonical: string): string {
  return createHmac('sha256', typeof secret === 'string' ? Buffer.from(secret, 'base64') : secret).update(canonical, 'utf8').digest('base64');
}

/** Canonical padded base64 of exactly 32 bytes: 43 characters, the last one of `AEIMQUYcgkosw048`, then `=`. */
const CANONICAL_SIGNATURE = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/**
 * Decoded strictly: Node's base64 decoder skips junk characters and stops at padding, so
 * anything but the canonical 44-character form (two joined headers, stray characters) is refused
 * before comparing.
 */
export function signatureMatches(secret: string | KeyObject, canonical: string, presented: string): boolean {
  if (!CANONICAL_SIGNATURE.test(presented)) return false;
  const expected = Buffer.from(signCanonical(secret, canonical), 'base64');
  const actual = Buffer.from(presented, 'base64');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The WebSocket `auth` frame signs GET of the socket path with empty query and body. */
export function wsAuthCanonical(signedAt: number, path: string): string {
  return canonicalString({ timestamp: String(signedAt), method: 'GET', path, query: '', body: '' });
}
