/**
 * A `/v0` session lasts as long as its authorisation: a JWT is refused once the
 * operator revoked its identity's sessions (every token issued at or before the revocation), and a
 * token from an API-wallet login once that wallet is no longer an approved, unexpired API wallet
 * of the identity at the venue. The venue is asked at use, its answer kept
 * API_WALLET_CHECK_CACHE_MS per (wallet, identity), so an expiry or removal takes effect within
 * that long and a busy session costs one venue read per window. A venue that cannot be reached
 * and no fresh answer: SERVICE_UNAVAILABLE (never a pass).
 */
import { ServiceError } from '../../domain/errors.ts';
import { sessionsRevokedAt, writeSessionsRevoked } from '../../store/v0-sessions.ts';
import { readJwt } from './jwt.ts';
import type { V0Venue } from './venue-port.ts';
import { isApprovedApiWallet } from './login.ts';
import type { V0Deps } from './v0-deps.ts';

export const API_WALLET_CHECK_CACHE_MS = 30_000;
/** Answers kept at most (oldest dropped first). */
const MAX_CACHED = 10_000;

const approvals = new WeakMap<V0Venue, Map<string, { approved: boolean; at: number }>>();

async function stillApproved(deps: V0Deps, apiWallet: string, identity: string, now: number): Promise<boolean> {
  let cache = approvals.get(deps.venue);
  if (!cache) approvals.set(deps.venue, (cache = new Map()));
  const key = `${apiWallet}:${identity}`;
  const cached = cache.get(key);
  if (cached && now - cached.at < API_WALLET_CHECK_CACHE_MS) return cached.approved;
  const approved = await isApprovedApiWallet(deps, apiWallet, identity);
  cache.delete(key);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, { approved, at: now });
  return approved;
}

/** The identity of a bearer token still authorised now. @throws ServiceError UNAUTHORIZED */
export async function authorisedIdentity(deps: V0Deps, token: string | null): Promise<string> {
  const now = deps.service.clock.now();
  const session = await readJwt(deps.jwtKey, token, now);
  const revokedAt = await sessionsRevokedAt(deps.service.db, session.identity);
  if (revokedAt !== null && session.issuedAtMs <= revokedAt) throw new ServiceError('UNAUTHORIZED', 'this session was revoked; log in again');
  if (session.apiWallet !== null && !(await stillApproved(deps, session.apiWallet, session.identity, now))) {
    throw new ServiceError('UNAUTHORIZED', 'the API wallet this session was issued to is no longer approved for the account; log in again');
  }
  return session.identity;
}

/** Ends every session of `identity` issued until now (`POST /admin/v1/v0/sessions/revoke`). */
export async function revokeSessions(deps: V0Deps, identity: string): Promise<{ address: string; revokedAt: number }> {
  const now = deps.service.clock.now();
  await writeSessionsRevoked(deps.service.db, identity, now);
  return { address: identity, revokedAt: now };
}
