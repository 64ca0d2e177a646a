/** GET /v1/auth/api-keys and DELETE /v1/auth/api-keys/{accessKey}. Secrets never leave again. */
import { ServiceError } from '../../domain/errors.ts';
import { liveApiKeys, revokeLiveApiKey } from '../../store/api-keys.ts';
import type { ServiceDeps } from '../deps.ts';

export interface ApiKeyView {
  accessKey: string;
  createdAt: number;
  expiresAt: number;
}

export async function listApiKeys(deps: ServiceDeps, accountId: string): Promise<ApiKeyView[]> {
  const now = deps.clock.now();
  const rows = await liveApiKeys(deps.db, accountId, now);
  return rows.map((r) => ({ accessKey: r.access_key, createdAt: r.created_at, expiresAt: r.expires_at }));
}

export async function revokeApiKey(deps: ServiceDeps, accountId: string, accessKey: string): Promise<void> {
  const revoked = await revokeLiveApiKey(deps.db, accountId, accessKey, deps.clock.now());
  // Another account's key is reported as absent: revealing that it exists would leak it.
  if (!revoked) throw new ServiceError('NOT_FOUND', 'no such live access key');
}
