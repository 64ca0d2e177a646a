/**
 * `/v0` bearer tokens: HS256 JWTs (jose) with issuer, audience, `jti`, `sub` = the identity's
 * EIP-55 address and a 24 h lifetime. Any failure to verify is UNAUTHORIZED with no detail.
 */
import { hkdfSync, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { getAddress } from 'viem';
import { ServiceError } from '../../domain/errors.ts';

export const JWT_ISSUER = 'rfq-service';
export const JWT_AUDIENCE = 'rfq-service/v0';

/** The signing key: HKDF-SHA256 of the service secret, label `v0-jwt`. */
export function deriveJwtKey(secretKeyBase64: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', Buffer.from(secretKeyBase64, 'base64'), Buffer.alloc(0), 'v0-jwt', 32));
}

/**
 * A token for `identity`; `apiWallet` is the signer when it signed in for a primary address
 * (claim `agt`): the session lasts only while that API wallet is approved (session.ts).
 */
export async function issueJwt(key: Uint8Array, identity: string, nowMs: number, lifetimeSecs: number, apiWallet: string | null = null): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  // `ims`: the issue in milliseconds, so a revocation ends the tokens issued before it and not a login the same second after it.
  return new SignJWT({ ims: nowMs, ...(apiWallet === null ? {} : { agt: getAddress(apiWallet) }) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(getAddress(identity))
    .setIssuer(JWT_ISSUER)
    .setAudience(JWT_AUDIENCE)
    .setJti(randomUUID())
    .setIssuedAt(iat)
    .setExpirationTime(iat + lifetimeSecs)
    .sign(key);
}

export interface V0Token {
  /** The identity (EIP-55 address). */
  identity: string;
  /** The API wallet that signed in for it (EIP-55), or null for the identity's own login. */
  apiWallet: string | null;
  /** Unix milliseconds of issue (the claim's seconds). */
  issuedAtMs: number;
  jti: string;
}

/** The identity (EIP-55 address) a valid token names. @throws ServiceError UNAUTHORIZED */
export async function verifyJwt(key: Uint8Array, token: string | null, nowMs: number): Promise<string> {
  return (await readJwt(key, token, nowMs)).identity;
}

/** What a valid token says. @throws ServiceError UNAUTHORIZED */
export async function readJwt(key: Uint8Array, token: string | null, nowMs: number): Promise<V0Token> {
  if (token === null) throw new ServiceError('UNAUTHORIZED', 'a bearer token is required');
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      currentDate: new Date(nowMs),
      requiredClaims: ['sub', 'exp', 'iat', 'jti'],
    });
    const apiWallet = typeof payload.agt === 'string' ? getAddress(payload.agt) : null;
    return { identity: getAddress(payload.sub!), apiWallet, issuedAtMs: typeof payload.ims === 'number' ? payload.ims : payload.iat! * 1000, jti: payload.jti! };
  } catch {
    throw new ServiceError('UNAUTHORIZED', 'the bearer token is invalid or expired');
  }
}
