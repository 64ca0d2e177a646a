/**
 * POST /v1/auth/challenge: a single-use nonce for a SIWE login, valid for `challengeTtlMs`.
 * Unauthenticated, so bounded: one source address holds at most `maxLiveChallengesPerSource`
 * unexpired, unused challenges (beyond: 429 RATE_LIMITED), and expired ones are pruned.
 */
import { sql } from 'kysely';
import { ServiceError } from '../../domain/errors.ts';
import { randomUuidV4 } from '../ids.ts';
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
  // One statement: the count and the insert see the same snapshot (concurrent calls from one
  // source may pass the cap by the few in flight, never more).
  const inserted = await sql<{ nonce: string }>`
    insert into auth_challenges (nonce, created_at, expires_at, used_at, source)
    select ${nonce}::uuid, ${now}::int8, ${expiresAt}::int8, null, ${source}
    where (select count(*) from auth_challenges where source = ${source} and expires_at > ${now} and used_at is null) < ${cap}
    returning nonce`.execute(deps.db);
  if (inserted.rows.length === 0) {
    throw new ServiceError('RATE_LIMITED', `at most ${cap} unused sign-in challenges per source; use or let one expire`, { retryAfterMs: deps.auth.challengeTtlMs });
  }
  return { nonce, expiresAt };
}

/** Deletes up to `batch` challenges past their expiry (used or not, they can no longer sign anyone in). */
export async function pruneChallenges(db: Db, now: number, batch = 5000): Promise<number> {
  const result = await sql`delete from auth_challenges where nonce in (select nonce from auth_challenges where expires_at <= ${now} limit ${batch})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
