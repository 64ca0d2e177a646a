/**
 * Per-node cache of credentials (unsealed secret, account, scope) so a signed request does not
 * read and decrypt its key each time. Entries live `ttlMs`; a revocation on this node evicts at
 * once, on another node within the TTL (documented in docs/decisions.md).
 */
import type { KeyObject } from 'node:crypto';
import { signingKey } from '../../domain/auth/hmac.ts';
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

/** Past this share of the TTL a hit still answers at once, and the entry is read again behind it. */
const REFRESH_AFTER = 0.5;

type Entry = { credential: Credential | null; fetchedAt: number };
type Load = { read: Promise<Credential | null> };

export class CredentialCache {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, Entry>();
  /** One read per key at a time: concurrent misses and refreshes share it (no stampede at expiry). */
  readonly #loading = new Map<string, Load>();

  constructor(ttlMs = 2000, maxEntries = 100_000) {
    this.#ttlMs = ttlMs;
    this.#maxEntries = maxEntries;
  }

  /**
   * The key's credential as read at most `ttlMs` ago. A busy key never waits for the store: past
   * half its TTL a hit starts a read in the background, so the entry is fresh again before it
   * expires; only an idle key's first use after the TTL waits (issue 17: the re-reads were about
   * 4% of quote requests, each a round trip on the request's path, and all keys read at start-up
   * expired together). A revocation on another node is still seen within the TTL.
   */
  async get(deps: ServiceDeps, accessKey: string): Promise<Credential | null> {
    const now = deps.clock.now();
    const cached = this.#entries.get(accessKey);
    if (cached && now - cached.fetchedAt < this.#ttlMs) {
      // Least recently used goes first: a hit moves the entry to the end of the map's order.
      this.#entries.delete(accessKey);
      this.#entries.set(accessKey, cached);
      // A failed refresh is left to the next one, or to the read at expiry, which answers its error.
      if (now - cached.fetchedAt >= this.#ttlMs * REFRESH_AFTER) this.#load(deps, accessKey, now).catch(() => undefined);
      return cached.credential;
    }
    return this.#load(deps, accessKey, now);
  }

  #load(deps: ServiceDeps, accessKey: string, now: number): Promise<Credential | null> {
    const running = this.#loading.get(accessKey);
    if (running) return running.read;
    const load: Load = { read: this.#read(deps, accessKey) };
    this.#loading.set(accessKey, load);
    load.read = load.read.then(
      (credential) => {
        // Evicted while reading (a revocation on this node): the row read may predate it.
        if (this.#loading.get(accessKey) === load) {
          this.#loading.delete(accessKey);
          this.#store(accessKey, { credential, fetchedAt: now });
        }
        return credential;
      },
      (error: unknown) => {
        if (this.#loading.get(accessKey) === load) this.#loading.delete(accessKey);
        throw error;
      },
    );
    return load.read;
  }

  async #read(deps: ServiceDeps, accessKey: string): Promise<Credential | null> {
    const row = await deps.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select(['api_keys.access_key', 'api_keys.account_id', 'accounts.address', 'api_keys.secret_enc', 'api_keys.maker_scoped', 'api_keys.expires_at', 'api_keys.revoked_at'])
      .where('api_keys.access_key', '=', accessKey)
      .executeTakeFirst();
    if (!row) return null;
    // A secret that does not open (sealed under another key, damaged) is as good as no credential.
    const secret = openOrNull(deps, row.secret_enc);
    if (secret === null) return null;
    return {
      accessKey: row.access_key,
      accountId: row.account_id,
      address: row.address,
      secret,
      makerScoped: row.maker_scoped,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
    };
  }

  #store(accessKey: string, entry: Entry): void {
    this.#entries.delete(accessKey);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(accessKey, entry);
  }

  /** Entries held now (never above the bound). */
  get size(): number {
    return this.#entries.size;
  }

  /** Forgets the key at once, and any read of it in flight (which may predate the change). */
  evict(accessKey: string): void {
    this.#entries.delete(accessKey);
    this.#loading.delete(accessKey);
  }

  /** Resolves once no read is in flight (tests; a refresh runs behind the request that started it). */
  async settled(): Promise<void> {
    while (this.#loading.size > 0) await Promise.allSettled([...this.#loading.values()].map((load) => load.read));
  }
}
