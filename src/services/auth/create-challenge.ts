/** POST /v1/auth/challenge: a single-use nonce for a SIWE login, valid for `challengeTtlMs`. */
import { randomUuidV4 } from '../ids.ts';
import type { ServiceDeps } from '../deps.ts';

export interface Challenge {
  nonce: string;
  expiresAt: number;
}

export async function createChallenge(deps: ServiceDeps): Promise<Challenge> {
  const now = deps.clock.now();
  const nonce = randomUuidV4();
  const expiresAt = now + deps.auth.challengeTtlMs;
  await deps.db.insertInto('auth_challenges').values({ nonce, created_at: now, expires_at: expiresAt, used_at: null }).execute();
  return { nonce, expiresAt };
}
