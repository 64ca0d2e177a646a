/** Sign-in challenges (SIWE nonces): issued under a per-source cap, pruned once expired. */
import { sql } from 'kysely';
import type { Db } from './transaction.ts';

/**
 * Inserts the challenge unless `source` already holds `cap` unexpired, unused ones; false when
 * refused. One statement: the count and the insert see the same snapshot (concurrent calls from
 * one source may pass the cap by the few in flight, never more).
 */
export async function insertChallengeUnderCap(db: Db, c: { nonce: string; now: number; expiresAt: number; source: string; cap: number }): Promise<boolean> {
  const inserted = await sql<{ nonce: string }>`
    insert into auth_challenges (nonce, created_at, expires_at, used_at, source)
    select ${c.nonce}::uuid, ${c.now}::int8, ${c.expiresAt}::int8, null, ${c.source}
    where (select count(*) from auth_challenges where source = ${c.source} and expires_at > ${c.now} and used_at is null) < ${c.cap}
    returning nonce`.execute(db);
  return inserted.rows.length > 0;
}

/** Deletes up to `batch` challenges past their expiry (used or not, they can no longer sign anyone in). */
export async function deleteExpiredChallenges(db: Db, now: number, batch: number): Promise<number> {
  const result = await sql`delete from auth_challenges where nonce in (select nonce from auth_challenges where expires_at <= ${now} limit ${batch})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
