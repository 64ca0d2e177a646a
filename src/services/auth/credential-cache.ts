/**
 * Per-node cache of credentials (unsealed secret, account, scope) so a signed request does not
 * read and decrypt its key each time. Entries live `ttlMs`; a revocation on this node evicts at
 * once, on another node within the TTL (documented in docs/decisions.md).
 */
import type { ServiceDeps } from '../deps.ts';

export interface Credential {
  accessKey: string;
  accountId: string;
  address: string;
  secret: string;
  makerScoped: boolean;
  expiresAt: number;
  revokedAt: number | null;
}

export class CredentialCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { credential: Credential | null; fetchedAt: number }>();

  constructor(ttlMs = 2000, maxEntries = 100_000) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  async get(deps: ServiceDeps, accessKey: string): Promise<Credential | null> {
    const now = deps.clock.now();
    const cached = this.#entries.get(accessKey);
    if (cached && now - cached.fetchedAt < this.#ttlMs) return cached.credential;
    const row = await deps.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select(['api_keys.access_key', 'api_keys.account_id', 'accounts.address', 'api_keys.secret_enc', 'api_keys.maker_scoped', 'api_keys.expires_at', 'api_keys.revoked_at'])
      .where('api_keys.access_key', '=', accessKey)
      .executeTakeFirst();
    const credential: Credential | null = row
      ? {
          accessKey: row.access_key,
          accountId: row.account_id,
          address: row.address,
          secret: deps.secrets.open(row.secret_enc),
          makerScoped: row.maker_scoped,
          expiresAt: row.expires_at,
          revokedAt: row.revoked_at,
        }
      : null;
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
    this.#entries.set(accessKey, { credential, fetchedAt: now });
    return credential;
  }

  evict(accessKey: string): void {
    this.#entries.delete(accessKey);
  }
}
