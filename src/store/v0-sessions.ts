/**
 * The rows behind `/v0` sessions: the operator's revocations (every token of an identity issued at
 * or before `revoked_at` is refused) and the login nonces, each (address, nonce) accepted once.
 */
import { sql } from 'kysely';
import type { Db, Reader } from './transaction.ts';

/** When the identity's sessions were last revoked; null when never. */
export async function sessionsRevokedAt(db: Reader, identity: string): Promise<number | null> {
  const row = await db.selectFrom('v0_session_revocations').select('revoked_at').where('identity', '=', identity).executeTakeFirst();
  return row ? Number(row.revoked_at) : null;
}

/** Records that every session of `identity` issued until `now` is revoked. */
export async function writeSessionsRevoked(db: Db, identity: string, now: number): Promise<void> {
  await db
    .insertInto('v0_session_revocations')
    .values({ identity, revoked_at: now })
    .onConflict((oc) => oc.column('identity').doUpdateSet({ revoked_at: now }))
    .execute();
}

/** Claims (address, nonce) for a login; false when it was already used. */
export async function claimLoginNonce(db: Db, address: string, nonce: string, now: number): Promise<boolean> {
  const claimed = await db
    .insertInto('v0_login_nonces')
    .values({ address, nonce, used_at: now })
    .onConflict((oc) => oc.doNothing())
    .returning('nonce')
    .executeTakeFirst();
  return claimed !== undefined;
}

/** Deletes up to `batch` login nonces used before `horizon`; how many it deleted. */
export async function deleteLoginNoncesUsedBefore(db: Db, horizon: number, batch: number): Promise<number> {
  const result = await sql`delete from v0_login_nonces where ctid in (select ctid from v0_login_nonces where used_at < ${horizon} limit ${batch})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
