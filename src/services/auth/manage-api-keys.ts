/** GET /v1/auth/api-keys and DELETE /v1/auth/api-keys/{accessKey}. Secrets never leave again. */
import { ServiceError } from '../../domain/errors.ts';
import type { ServiceDeps } from '../deps.ts';

export interface ApiKeyView {
  accessKey: string;
  createdAt: number;
  expiresAt: number;
}

export async function listApiKeys(deps: ServiceDeps, accountId: string): Promise<ApiKeyView[]> {
  const now = deps.clock.now();
  const rows = await deps.db
    .selectFrom('api_keys')
    .select(['access_key', 'created_at', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('access_key', 'desc')
    .limit(1000)
    .execute();
  return rows.map((r) => ({ accessKey: r.access_key, createdAt: r.created_at, expiresAt: r.expires_at }));
}

export async function revokeApiKey(deps: ServiceDeps, accountId: string, accessKey: string): Promise<void> {
  const row = await deps.db
    .updateTable('api_keys')
    .set({ revoked_at: deps.clock.now() })
    .where('access_key', '=', accessKey)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('access_key')
    .executeTakeFirst();
  // Another account's key is reported as absent: revealing that it exists would leak it.
  if (!row) throw new ServiceError('NOT_FOUND', 'no such live access key');
}
