/**
 * Per-node cache of credentials (unsealed secret, account, scope) so a signed request does not
 * read and decrypt its key each time. Entries live `ttlMs`; a revocation on this node evicts at
 * once, on another node within the TTL (docs/decisions/0017-per-node-caches.md).
 */
import type { KeyObject } from 'node:crypto';
import { signingKey } from '../../domain/auth/hmac.ts';
import { apiKeyWithAccount } from '../../store/api-keys.ts';
import type { ServiceDeps } from '../deps.ts';

export interface Credential {
  accessKey: string;
  accountId: string;
  address: string;
  /** The unsealed HMAC secret, prepared once for signing (hmac.ts `signingKey`). */
  secret: KeyObject;
  makerScoped: boolean;
  expiresAt: number;
  revokedAt: number | null;
}

function openOrNull(deps: ServiceDeps, sealed: string): KeyObject | null {
  try {
    return signingKey(deps.secrets.open(sealed));
  } catch {
    return null;
  }
}

export class CredentialCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { credential: Credential | null; fetchedAt: number }>();
  /** Evictions so far: a read that one overtook answers its caller but is not kept. */
  #evictions = 0;

  constructor(ttlMs = 2000, maxEntries = 100_000) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  async get(deps: ServiceDeps, accessKey: string): Promise<Credential | null> {
    const now = deps.clock.now();
    const cached = this.#entries.get(accessKey);
    if (cached && now - cached.fetchedAt < this.#ttlMs) {
      // Least recently used goes first: a hit moves the entry to the end of the map's order.
      this.#entries.delete(accessKey);
      this.#entries.set(accessKey, cached);
      return cached.credential;
    }
    const evictions = this.#evictions;
    const row = await apiKeyWithAccount(deps.db, accessKey);
    const credential = row
      ? {
          accessKey: row.access_key,
          accountId: row.account_id,
          address: row.address,
          secret: openOrNull(deps, row.secret_enc),
          makerScoped: row.maker_scoped,
          expiresAt: row.expires_at,
          revokedAt: row.revoked_at,
        }
      : null;
    // A secret that does not open (sealed under another key, damaged) is as good as no credential.
    const usable = credential && credential.secret !== null ? credential : null;
    // An eviction while the row was read (a revocation on this node) may postdate the row: keep
    // nothing then, so the node that revoked a key never answers it from a row read before.
    if (evictions !== this.#evictions) return usable as Credential | null;
    this.#entries.delete(accessKey);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(accessKey, { credential: usable as Credential | null, fetchedAt: now });
    return usable as Credential | null;
  }

  /** Entries held now (never above the bound). */
  get size(): number {
    return this.#entries.size;
  }

  evict(accessKey: string): void {
    this.#evictions += 1;
    this.#entries.delete(accessKey);
  }
}
