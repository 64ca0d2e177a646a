/**
 * Whether credentials may still act now, read live from the store (never from a node's cache):
 * the key unrevoked and unexpired, and its account an active, unsuspended maker (DESIGN.md
 * section 11). Sessions and maker routes consult this so a revocation, an expiry or a maker's
 * deactivation or suspension takes effect on every node, not only the one that made the change.
 */
import { sql } from 'kysely';
import type { Reader } from '../../store/transaction.ts';

export interface CredentialStanding {
  /** Null while the key may act; else why not (unknown, revoked or expired). */
  keyRefusal: string | null;
  /** Null while the account is an active, unsuspended maker; else why not. */
  makerRefusal: string | null;
  /** Set while the maker is suspended: the refusal names when it may quote again. */
  suspendedUntil: number | null;
}

/** At most this many keys per statement: one node's sessions are read in bounded chunks. */
const CHUNK = 5000;

export async function readCredentialStandings(db: Reader, accessKeys: readonly string[], now: number): Promise<Map<string, CredentialStanding>> {
  const out = new Map<string, CredentialStanding>();
  const unique = [...new Set(accessKeys)];
  for (let start = 0; start < unique.length; start += CHUNK) {
    const chunk = unique.slice(start, start + CHUNK);
    const rows = await sql<{ access_key: string; revoked_at: string | number | null; expires_at: string | number; active: boolean | null; suspended_until: string | number | null }>`
      select k.access_key, k.revoked_at, k.expires_at, m.active, m.suspended_until
      from api_keys k left join makers m on m.account_id = k.account_id
      where k.access_key = any(${chunk}::text[])`.execute(db);
    for (const row of rows.rows) out.set(row.access_key, standingOf(row, now));
  }
  for (const key of unique) if (!out.has(key)) out.set(key, { keyRefusal: 'unknown access key', makerRefusal: 'this account is not an active maker', suspendedUntil: null });
  return out;
}

function standingOf(row: { revoked_at: string | number | null; expires_at: string | number; active: boolean | null; suspended_until: string | number | null }, now: number): CredentialStanding {
  const keyRefusal = row.revoked_at !== null ? 'access key revoked' : Number(row.expires_at) <= now ? 'access key expired' : null;
  const suspendedUntil = row.active === true && row.suspended_until !== null && Number(row.suspended_until) > now ? Number(row.suspended_until) : null;
  const makerRefusal = row.active !== true ? 'this account is not an active maker' : suspendedUntil !== null ? 'this maker is suspended after failed settlements' : null;
  return { keyRefusal, makerRefusal, suspendedUntil };
}

export async function readCredentialStanding(db: Reader, accessKey: string, now: number): Promise<CredentialStanding> {
  return (await readCredentialStandings(db, [accessKey], now)).get(accessKey)!;
}
