/**
 * A maker's denylist (DESIGN.md section 15): `PUT /v1/rfq/maker/denylist { takers }` replaces the
 * takers it denies, named by its own pseudonyms for them; `GET` answers it. A denied taker's RFQs
 * created from then on never reach the maker (their audience excludes it: no `rfq` frame), none
 * of its RFQs is in the maker's open listing, and the maker's quotes on them are refused
 * (COUNTERPARTY_DENIED), also on RFQs created before the denial.
 *
 * The store keeps account ids, so a denial survives a change of the server key (the pseudonyms
 * then change with it). A pseudonym is resolved by computing this maker's pseudonym of every
 * account: one HMAC per account per PUT (about a second per million accounts), paid only when a
 * maker changes its list and never on the quote or delivery path.
 */
import { ServiceError, invalidRequest } from '../../domain/errors.ts';
import { isTakerPseudonym } from '../../domain/auth/taker-pseudonym.ts';
import { accountIdsAfter, deniedTakersOf, writeDeniedTakers } from '../../store/maker-conduct.ts';
import type { ServiceDeps } from '../deps.ts';

export const MAX_DENIED_TAKERS = 1000;

export interface Denylist {
  takers: string[];
}

async function deniedOf(deps: ServiceDeps, accountId: string): Promise<string[]> {
  const denied = await deniedTakersOf(deps.db, accountId);
  if (denied === null) throw new ServiceError('MAKER_NOT_APPROVED', 'this account is not a registered maker');
  return denied;
}

function viewOf(deps: ServiceDeps, accountId: string, takers: readonly string[]): Denylist {
  return { takers: takers.map((taker) => deps.pseudonyms.of(accountId, taker)).sort() };
}

export async function readDenylist(deps: ServiceDeps, accountId: string): Promise<Denylist> {
  return viewOf(deps, accountId, await deniedOf(deps, accountId));
}

export async function setDenylist(deps: ServiceDeps, accountId: string, input: { takers: readonly string[] }): Promise<Denylist> {
  const malformed = input.takers.flatMap((t, i) => (isTakerPseudonym(t) ? [] : [{ field: `takers[${i}]`, reason: 'format', message: 'a taker is named by its pseudonym, tkr_ and 16 base32 characters' }]));
  if (malformed.length > 0) throw invalidRequest(malformed, malformed[0]!.message);
  await deniedOf(deps, accountId);
  const wanted = new Set(input.takers);
  const found = new Map<string, string>();
  if (wanted.size > 0) {
    // Keyset pages of accounts, so memory stays flat however many there are.
    let after: string | null = null;
    while (found.size < wanted.size) {
      const ids = await accountIdsAfter(deps.db, after, 1000);
      if (ids.length === 0) break;
      for (const id of ids) {
        const pseudonym = deps.pseudonyms.of(accountId, id);
        if (id !== accountId && wanted.has(pseudonym)) found.set(pseudonym, id);
      }
      after = ids[ids.length - 1]!;
    }
  }
  const unknown = input.takers.flatMap((t, i) => (found.has(t) ? [] : [{ field: `takers[${i}]`, reason: 'unknownTaker', message: `no taker is ${t} to you` }]));
  if (unknown.length > 0) throw invalidRequest(unknown, unknown[0]!.message);
  const takers = [...new Set(found.values())].sort();
  await writeDeniedTakers(deps.db, accountId, takers, deps.clock.now());
  // This node's quote path sees the new list at once; other nodes within their maker cache's TTL.
  deps.quoteCaches.forgetMaker(accountId);
  return viewOf(deps, accountId, takers);
}
