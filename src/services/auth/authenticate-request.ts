/**
 * Verifies a signed REST request or WebSocket `auth` frame (DESIGN.md section 4):
 * credential known, live and unrevoked (401 UNAUTHENTICATED); timestamp within the skew either
 * way (401 TIMESTAMP_OUT_OF_WINDOW); signature (403 SIGNATURE_MISMATCH); then the
 * (access key, timestamp) pair is claimed once across all nodes (401 TIMESTAMP_REUSED).
 * The claim comes last so a forged request cannot burn a legitimate timestamp.
 */
import { ServiceError } from '../../domain/errors.ts';
import { canonicalShape, canonicalString, signatureMatches, type CanonicalRequest } from '../../domain/auth/hmac.ts';
import type { ServiceDeps } from '../deps.ts';
import type { CredentialCache, Credential } from './credential-cache.ts';
import { assertTimestampClaimed, type TimestampClaims } from './timestamp-claims.ts';

export interface SignedRequest {
  accessKey: string | null;
  timestamp: string | null;
  signature: string | null;
  /** What was signed besides the timestamp: method, path, query and raw body as received. */
  signed: Omit<CanonicalRequest, 'timestamp'>;
  /** Leave the replay claim to the use case, which makes it inside its own write (one round trip). */
  deferClaim?: boolean;
}

export interface AuthContext {
  accountId: string;
  address: string;
  accessKey: string;
  makerScoped: boolean;
  signedAt: number;
  /** Set once the (access key, timestamp) pair has been claimed (by this check or by the use case). */
  timestampClaimed: boolean;
}

export interface AuthenticateDeps {
  service: ServiceDeps;
  credentials: CredentialCache;
  claims: TimestampClaims;
}

export async function authenticateRequest(deps: AuthenticateDeps, request: SignedRequest): Promise<AuthContext> {
  const now = deps.service.clock.now();
  if (!request.accessKey) throw new ServiceError('UNAUTHENTICATED', 'missing credential (Authorization: Bearer <accessKey>)');
  if (!request.timestamp) throw new ServiceError('UNAUTHENTICATED', 'missing Service-API-Timestamp header');
  if (!request.signature) throw new ServiceError('UNAUTHENTICATED', 'missing Service-API-Signature header');
  const credential: Credential | null = await deps.credentials.get(deps.service, request.accessKey);
  if (!credential) throw new ServiceError('UNAUTHENTICATED', 'unknown access key');
  if (credential.revokedAt !== null) throw new ServiceError('UNAUTHENTICATED', 'access key revoked');
  if (credential.expiresAt <= now) throw new ServiceError('UNAUTHENTICATED', 'access key expired');
  if (!/^\d{1,16}$/.test(request.timestamp)) {
    throw new ServiceError('TIMESTAMP_OUT_OF_WINDOW', 'Service-API-Timestamp must be unix milliseconds', { serverTime: now });
  }
  const signedAt = Number(request.timestamp);
  if (Math.abs(now - signedAt) > deps.service.auth.timestampSkewMs) {
    // A value a thousand times too small is the usual mistake: seconds where milliseconds belong.
    const seconds = Math.abs(now - signedAt * 1000) <= deps.service.auth.timestampSkewMs + 1000;
    throw new ServiceError('TIMESTAMP_OUT_OF_WINDOW', seconds
      ? 'Service-API-Timestamp looks like unix seconds: send unix milliseconds'
      : 'Service-API-Timestamp is more than 30 s from the server clock', {
      serverTime: now,
      ...(seconds ? { hint: 'milliseconds' } : {}),
    });
  }
  const canonical: CanonicalRequest = { timestamp: request.timestamp, ...request.signed };
  if (!signatureMatches(credential.secret, canonicalString(canonical), request.signature)) {
    throw new ServiceError('SIGNATURE_MISMATCH', 'signature does not match the request: details show the canonical string the server built from it', canonicalShape(canonical));
  }
  if (request.deferClaim !== true) assertTimestampClaimed(await deps.claims.claim(credential.accessKey, signedAt), now);
  return {
    accountId: credential.accountId,
    address: credential.address,
    accessKey: credential.accessKey,
    makerScoped: credential.makerScoped,
    signedAt,
    timestampClaimed: request.deferClaim !== true,
  };
}
