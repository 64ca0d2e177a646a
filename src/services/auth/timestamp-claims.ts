/**
 * Claims each (access key, timestamp) pair once across every node, through a primary key in the
 * shared store. Claims arriving together are written in one multi-row statement (group commit),
 * so replay protection costs a fraction of a round trip per request under load.
 *
 * A claim is only written for a key unrevoked in the store at that instant: the per-node
 * credential cache may be seconds old, but a key revoked through any node stops working
 * everywhere with its very next request, at no extra round trip. (Expiry never changes, so the
 * cached expiry is exact.)
 */
import { sql } from 'kysely';
import { ServiceError } from '../../domain/errors.ts';
import type { Db, Reader, Tx } from '../../store/transaction.ts';

interface PendingClaim {
  accessKey: string;
  signedAt: number;
  resolve: (claimed: boolean) => void;
  reject: (error: unknown) => void;
}

export class TimestampClaims {
  readonly #db: Db;
  readonly #maxBatch: number;
  #pending: PendingClaim[] = [];
  #flushing = false;

  constructor(db: Db, maxBatch = 500) {
    this.#db = db;
    this.#maxBatch = maxBatch;
  }

  claim(accessKey: string, signedAt: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ accessKey, signedAt, resolve, reject });
      if (!this.#flushing) void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0, this.#maxBatch);
        await this.#write(batch);
      }
    } finally {
      this.#flushing = false;
    }
  }

  async #write(batch: PendingClaim[]): Promise<void> {
    // Duplicates inside one batch: only the first may win.
    const seen = new Set<string>();
    const unique: PendingClaim[] = [];
    for (const claim of batch) {
      const id = `${claim.accessKey}\n${claim.signedAt}`;
      if (seen.has(id)) claim.resolve(false);
      else {
        seen.add(id);
        unique.push(claim);
      }
    }
    if (unique.length === 0) return;
    try {
      const won = await insertLiveClaims(this.#db, unique);
      const lost = unique.filter((c) => !won.has(`${c.accessKey}\n${c.signedAt}`));
      // Lost: a replay, or a key revoked since it was cached (told apart only on this rare path).
      const unrevoked = lost.length > 0 ? await unrevokedKeys(this.#db, lost.map((c) => c.accessKey)) : new Set<string>();
      for (const claim of unique) {
        if (won.has(`${claim.accessKey}\n${claim.signedAt}`)) claim.resolve(true);
        else if (!unrevoked.has(claim.accessKey)) claim.reject(new ServiceError('UNAUTHENTICATED', 'access key revoked'));
        else claim.resolve(false);
      }
    } catch (error) {
      for (const claim of unique) claim.reject(error);
    }
  }

  /** Forgets claims older than the skew window: they can no longer be replayed anyway. */
  async prune(olderThan: number): Promise<void> {
    await sql`delete from request_timestamps where signed_at < ${olderThan}`.execute(this.#db);
  }
}

/**
 * The replay rule's one verdict, for every place that claims a request's (access key, timestamp):
 * authentication (`TimestampClaims.claim`), a use case's own transaction (`claimInTransaction`),
 * the quote write's SQL claim (`out_reused`) and the claim made after a refusal
 * (api/deferred-claim.ts). A pair already claimed is refused 401 TIMESTAMP_REUSED with the server time.
 */
export function assertTimestampClaimed(claimed: boolean, serverTime: number): void {
  if (!claimed) throw new ServiceError('TIMESTAMP_REUSED', 'this timestamp was already used with this access key', { serverTime });
}

/** A request whose replay claim the authentication step left to the use case. */
export interface DeferredClaim {
  accessKey: string;
  signedAt: number;
  /** Set once the claim is durable (the use case's transaction committed, or claimed separately). */
  timestampClaimed: boolean;
}

/**
 * Claims the request's (access key, timestamp) inside the use case's own transaction (no extra
 * round trip). The claim commits or rolls back with the change; a use case that refuses must
 * leave the claim to its caller (see api/deferred-claim.ts).
 */
export async function claimInTransaction(tx: Tx, claim: DeferredClaim | undefined): Promise<boolean> {
  if (!claim || claim.timestampClaimed) return true;
  if ((await insertLiveClaims(tx, [claim])).size > 0) return true;
  if (!(await unrevokedKeys(tx, [claim.accessKey])).has(claim.accessKey)) throw new ServiceError('UNAUTHENTICATED', 'access key revoked');
  return false;
}

async function unrevokedKeys(db: Reader, accessKeys: string[]): Promise<Set<string>> {
  const rows = await db.selectFrom('api_keys').select('access_key').where('access_key', 'in', [...new Set(accessKeys)]).where('revoked_at', 'is', null).execute();
  return new Set(rows.map((r) => r.access_key));
}

/** Inserts the claims whose key is unrevoked now; returns the `accessKey\nsignedAt` of those won. */
async function insertLiveClaims(db: Reader, claims: ReadonlyArray<{ accessKey: string; signedAt: number }>): Promise<Set<string>> {
  const keys = claims.map((c) => c.accessKey);
  const times = claims.map((c) => String(c.signedAt));
  const rows = await sql<{ access_key: string; signed_at: string | number }>`
    insert into request_timestamps (access_key, signed_at)
    select t.access_key, t.signed_at
    from unnest(${keys}::text[], ${times}::int8[]) as t(access_key, signed_at)
    join api_keys k on k.access_key = t.access_key and k.revoked_at is null
    on conflict do nothing
    returning access_key, signed_at`.execute(db);
  return new Set(rows.rows.map((r) => `${r.access_key}\n${Number(r.signed_at)}`));
}
