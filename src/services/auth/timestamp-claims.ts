/**
 * Claims each (access key, timestamp) pair once across every node, through a primary key in the
 * shared store. Claims arriving together are written in one multi-row statement (group commit),
 * so replay protection costs a fraction of a round trip per request under load.
 */
import { sql } from 'kysely';
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
      const rows = await this.#db
        .insertInto('request_timestamps')
        .values(unique.map((c) => ({ access_key: c.accessKey, signed_at: c.signedAt })))
        .onConflict((oc) => oc.doNothing())
        .returning(['access_key', 'signed_at'])
        .execute();
      const won = new Set(rows.map((r) => `${r.access_key}\n${r.signed_at}`));
      for (const claim of unique) claim.resolve(won.has(`${claim.accessKey}\n${claim.signedAt}`));
    } catch (error) {
      for (const claim of unique) claim.reject(error);
    }
  }

  /** Forgets claims older than the skew window: they can no longer be replayed anyway. */
  async prune(olderThan: number): Promise<void> {
    await sql`delete from request_timestamps where signed_at < ${olderThan}`.execute(this.#db);
  }
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
  const row = await tx
    .insertInto('request_timestamps')
    .values({ access_key: claim.accessKey, signed_at: claim.signedAt })
    .onConflict((oc) => oc.doNothing())
    .returning('signed_at')
    .executeTakeFirst();
  return row !== undefined;
}
