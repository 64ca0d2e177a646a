/**
 * POST /v1/auth/challenge: a single-use nonce for a SIWE login, valid for `challengeTtlMs`.
 * Unauthenticated, so bounded: one source address holds at most `maxLiveChallengesPerSource`
 * unexpired, unused challenges (beyond: 429 RATE_LIMITED), and expired ones are pruned.
 */
import { ServiceError } from '../../domain/errors.ts';
import { randomUuidV4 } from '../ids.ts';
import { deleteExpiredChallenges, insertChallengeUnderCap } from '../../store/auth-challenges.ts';
import type { Db } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';

export interface Challenge {
  nonce: string;
  expiresAt: number;
}

export async function createChallenge(deps: ServiceDeps, source: string): Promise<Challenge> {
  const now = deps.clock.now();
  const nonce = randomUuidV4();
  const expiresAt = now + deps.auth.challengeTtlMs;
  const cap = deps.auth.maxLiveChallengesPerSource;
  if (!(await insertChallengeUnderCap(deps.db, { nonce, now, expiresAt, source, cap }))) {
    throw new ServiceError('RATE_LIMITED', `at most ${cap} unused sign-in challenges per source; use or let one expire`, { retryAfterMs: deps.auth.challengeTtlMs });
  }
  return { nonce, expiresAt };
}

/** Deletes up to `batch` challenges past their expiry (used or not, they can no longer sign anyone in). */
export async function pruneChallenges(db: Db, now: number, batch = 5000): Promise<number> {
  return deleteExpiredChallenges(db, now, batch);
}
