/**
 * Whether credentials may still act now, read live from the store (never from a node's cache):
 * the key unrevoked and unexpired, and its account an active, unsuspended maker (DESIGN.md
 * section 11). Sessions and maker routes consult this so a revocation, an expiry or a maker's
 * deactivation or suspension takes effect on every node, not only the one that made the change.
 */
import { makerStandingRefusal } from '../../domain/rfq/quote-admission.ts';
import { credentialRows, type CredentialRow } from '../../store/credential-rows.ts';
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
    for (const row of await credentialRows(db, chunk)) out.set(row.access_key, standingOf(row, now));
  }
  for (const key of unique) if (!out.has(key)) out.set(key, { keyRefusal: 'unknown access key', makerRefusal: 'this account is not an active maker', suspendedUntil: null });
  return out;
}

function standingOf(row: CredentialRow, now: number): CredentialStanding {
  const keyRefusal = row.revoked_at !== null ? 'access key revoked' : Number(row.expires_at) <= now ? 'access key expired' : null;
  const maker = row.active === null ? null : { active: row.active, suspendedUntil: row.suspended_until === null ? null : Number(row.suspended_until) };
  const refusal = makerStandingRefusal(maker, now);
  const makerRefusal = refusal === 'inactive' ? 'this account is not an active maker' : refusal === 'suspended' ? 'this maker is suspended after failed settlements' : null;
  return { keyRefusal, makerRefusal, suspendedUntil: refusal === 'suspended' ? maker!.suspendedUntil : null };
}

export async function readCredentialStanding(db: Reader, accessKey: string, now: number): Promise<CredentialStanding> {
  return (await readCredentialStandings(db, [accessKey], now)).get(accessKey)!;
}
