/**
 * The replay claim (spec, "Authentication": an (access key, timestamp) pair is accepted once), in
 * one place: the SQL function `rfq_claim_timestamps` (src/store/sql/rfq_claim_timestamps.sql, PL/pgSQL
 * keeping its plans: src/store/sql/README.md), claims each
 * pair through the primary key of `request_timestamps`, but only for a key unrevoked in the store
 * at that instant (the per-node credential cache may be seconds old; a key revoked through any
 * node stops with its very next request). Every claim goes through it: the batched claim at
 * authentication (HTTP and WebSocket `auth`, src/services/auth/timestamp-claims.ts), the claim
 * inside a use case's transaction, and the quote write (`rfq_write_quotes`,
 * src/store/sql/rfq_write_quotes.sql).
 */
import { sql } from 'kysely';
import type { Reader } from './transaction.ts';

/** `claimed` (first use), `reused` (already claimed) or `revoked` (the key is revoked or unknown). */
export type ClaimOutcome = 'claimed' | 'reused' | 'revoked';

/** The key of one claim in `claimTimestamps`' answer. */
export function claimKey(accessKey: string, signedAt: number): string {
  return `${accessKey}\n${signedAt}`;
}

/**
 * Claims each (access key, timestamp) pair in one statement; returns each pair's outcome by
 * `claimKey`. Pairs repeated in `claims` are claimed once (the caller decides who of them won).
 */
export async function claimTimestamps(db: Reader, claims: ReadonlyArray<{ accessKey: string; signedAt: number }>): Promise<Map<string, ClaimOutcome>> {
  const keys = claims.map((c) => c.accessKey);
  const times = claims.map((c) => String(c.signedAt));
  const rows = await sql<{ access_key: string; signed_at: string | number; outcome: ClaimOutcome }>`
    select access_key, signed_at, outcome from rfq_claim_timestamps(${keys}::text[], ${times}::int8[])`.execute(db);
  return new Map(rows.rows.map((r) => [claimKey(r.access_key, Number(r.signed_at)), r.outcome]));
}

/** Forgets claims older than `olderThan` (UnixMillis): past the skew window they cannot be replayed. */
export async function pruneTimestampClaims(db: Reader, olderThan: number): Promise<void> {
  await sql`delete from request_timestamps where signed_at < ${olderThan}`.execute(db);
}
