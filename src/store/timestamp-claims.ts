/**
 * The replay claim (spec, "Authentication": an (access key, timestamp) pair is accepted once), in
 * one place: the SQL function `rfq_claim_timestamps` below (migration 0085; PL/pgSQL since 0152,
 * keeping its plan since 0176: generic-plans.ts), claims each
 * pair through the primary key of `request_timestamps`, but only for a key unrevoked in the store
 * at that instant (the per-node credential cache may be seconds old; a key revoked through any
 * node stops with its very next request). Every claim goes through it: the batched claim at
 * authentication (HTTP and WebSocket `auth`, src/services/auth/timestamp-claims.ts), the claim
 * inside a use case's transaction, and the quote write (`rfq_write_quotes`,
 * src/store/quote-write-function.ts).
 */
import { sql } from 'kysely';
import { GENERIC_PLANS } from './generic-plans.ts';
import type { Reader } from './transaction.ts';

/** `claimed` (first use), `reused` (already claimed) or `revoked` (the key is revoked or unknown). */
export type ClaimOutcome = 'claimed' | 'reused' | 'revoked';

export const RFQ_CLAIM_TIMESTAMPS_SQL = `
create or replace function rfq_claim_timestamps(p_keys text[], p_times int8[])
returns table (access_key text, signed_at int8, outcome text)
language plpgsql ${GENERIC_PLANS} as $fn$
#variable_conflict use_column
begin
  return query
  with wanted as (
    select distinct t.access_key, t.signed_at from unnest(p_keys, p_times) as t(access_key, signed_at)
  ), won as (
    insert into request_timestamps (access_key, signed_at)
    select w.access_key, w.signed_at from wanted w
    join api_keys k on k.access_key = w.access_key and k.revoked_at is null
    on conflict do nothing
    returning request_timestamps.access_key, request_timestamps.signed_at
  )
  select w.access_key, w.signed_at,
    case
      when exists (select 1 from won where won.access_key = w.access_key and won.signed_at = w.signed_at) then 'claimed'
      -- Lost: a replay, or a key revoked since it was cached (told apart only on this rare path).
      when exists (select 1 from api_keys k where k.access_key = w.access_key and k.revoked_at is null) then 'reused'
      else 'revoked'
    end
  from wanted w;
end
$fn$;
`;

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
