/**
 * Claims each (access key, timestamp) pair once across every node, through the store's one claim
 * (`claimTimestamps`, src/store/timestamp-claims.ts: a key revoked in the store is refused there).
 * Claims arriving together are written in one statement (group commit), so replay protection
 * costs a fraction of a round trip per request under load. (Expiry never changes, so the cached
 * expiry is exact.)
 */
import { ServiceError } from '../../domain/errors.ts';
import { claimKey, claimTimestamps, pruneTimestampClaims, type ClaimOutcome } from '../../store/timestamp-claims.ts';
import type { Db, Tx } from '../../store/transaction.ts';

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
    try {
      const outcomes = await claimTimestamps(this.#db, batch);
      // Duplicates inside one batch: only the first may win.
      const seen = new Set<string>();
      for (const claim of batch) {
        const key = claimKey(claim.accessKey, claim.signedAt);
        const outcome = outcomes.get(key);
        if (outcome === 'revoked') claim.reject(revokedError());
        else claim.resolve(outcome === 'claimed' && !seen.has(key));
        seen.add(key);
      }
    } catch (error) {
      for (const claim of batch) claim.reject(error);
    }
  }

  /** Forgets claims older than the skew window: they can no longer be replayed anyway. */
  async prune(olderThan: number): Promise<void> {
    await pruneTimestampClaims(this.#db, olderThan);
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
  return claimWon((await claimTimestamps(tx, [claim])).get(claimKey(claim.accessKey, claim.signedAt)));
}

/** A claim's outcome as `claimInTransaction` answers it: revoked throws, otherwise whether it was won. */
export function claimWon(outcome: ClaimOutcome | undefined): boolean {
  if (outcome === 'revoked') throw revokedError();
  return outcome === 'claimed';
}

function revokedError(): ServiceError {
  return new ServiceError('UNAUTHENTICATED', 'access key revoked');
}
