/**
 * The SIWE sign-in's rows: challenges consumed once, accounts by address, and the HMAC API keys
 * (their secrets sealed by the caller; this module never sees a secret in the clear).
 */
import type { Db, Reader, Tx } from './transaction.ts';

/** Marks a live, unused challenge used; false when it is unknown, expired or already used. */
export async function consumeChallenge(tx: Tx, nonce: string, now: number): Promise<boolean> {
  const claimed = await tx.updateTable('auth_challenges').set({ used_at: now }).where('nonce', '=', nonce).where('used_at', 'is', null).where('expires_at', '>', now).returning('nonce').executeTakeFirst();
  return claimed !== undefined;
}

/** The account's maker id when it is an active maker (its keys are then maker-scoped), else null. */
export async function activeMakerIdOf(db: Reader, accountId: string): Promise<string | null> {
  const maker = await db.selectFrom('makers').select('maker_id').where('account_id', '=', accountId).where('active', '=', true).executeTakeFirst();
  return maker?.maker_id ?? null;
}

export interface NewApiKey {
  accessKey: string;
  accountId: string;
  secretSealed: string;
  makerScoped: boolean;
  createdAt: number;
  expiresAt: number;
}

export async function insertApiKey(tx: Tx, key: NewApiKey): Promise<void> {
  await tx
    .insertInto('api_keys')
    .values({ access_key: key.accessKey, account_id: key.accountId, secret_enc: key.secretSealed, maker_scoped: key.makerScoped, created_at: key.createdAt, expires_at: key.expiresAt, revoked_at: null })
    .execute();
}

/** The account's live keys (neither revoked nor expired at `now`), newest first, at most 1,000. */
export async function liveApiKeys(db: Reader, accountId: string, now: number): Promise<Array<{ access_key: string; created_at: number; expires_at: number }>> {
  return db
    .selectFrom('api_keys')
    .select(['access_key', 'created_at', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('access_key', 'desc')
    .limit(1000)
    .execute();
}

/** Revokes the account's key if it is live; false when the account has no such live key. */
export async function revokeLiveApiKey(db: Db, accountId: string, accessKey: string, now: number): Promise<boolean> {
  const row = await db.updateTable('api_keys').set({ revoked_at: now }).where('access_key', '=', accessKey).where('account_id', '=', accountId).where('revoked_at', 'is', null).returning('access_key').executeTakeFirst();
  return row !== undefined;
}

/** A key with its account's address, as authentication needs it (secret still sealed). */
export async function apiKeyWithAccount(db: Reader, accessKey: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select(['api_keys.access_key', 'api_keys.account_id', 'accounts.address', 'api_keys.secret_enc', 'api_keys.maker_scoped', 'api_keys.expires_at', 'api_keys.revoked_at'])
    .where('api_keys.access_key', '=', accessKey)
    .executeTakeFirst();
}
