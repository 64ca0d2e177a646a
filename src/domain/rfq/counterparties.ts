/**
 * Counterparty choice with anonymity kept (DESIGN.md section 15). A maker may disclose itself
 * under a public alias that takers name (`makers`) or exclude (`excludeMakers`); takers are shown
 * to each maker under a pseudonym of that maker's own (src/domain/auth/taker-pseudonym.ts), which
 * the maker may deny. An RFQ's
 * audience is fixed when it is created, from the names it carried and the denials then in force;
 * whom a frame or a listing reaches is this file's `reaches`, and the store's SQL form of it
 * (src/store/rfq-audience.ts) is held to it by a parity test.
 */
import { invalidField } from '../errors.ts';

/**
 * 3 to 32 letters, digits, `.`, `_` or `-`, starting with a letter or digit: no spaces, no
 * look-alike Unicode and nothing that reads as an address, so an alias names one maker plainly.
 */
const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]{2,31}$/;
const ADDRESS_LIKE = /^0x[0-9a-fA-F]{6,}/;

/** The alias as given, or INVALID_REQUEST naming the field. Aliases compare case-insensitively. */
export function parseAlias(raw: string, field = 'alias'): string {
  if (!ALIAS.test(raw)) throw invalidField(field, 'format', `${field} is 3-32 letters, digits, '.', '_' or '-', starting with a letter or digit`);
  if (ADDRESS_LIKE.test(raw)) throw invalidField(field, 'format', `${field} must not look like an address`);
  return raw;
}

/** The key aliases are unique under and looked up by. */
export function aliasKey(alias: string): string {
  return alias.toLowerCase();
}

/**
 * Whom an RFQ reaches, by maker account id: `only` when the taker named makers (null: the
 * default broadcast), never those in `except` (excluded by the taker, or denying it).
 */
export interface Audience {
  only: readonly string[] | null;
  except: readonly string[];
}

export const BROADCAST: Audience = { only: null, except: [] };

/**
 * The audience of a new RFQ: the named makers, or everyone but the excluded ones, less every
 * maker that denies this taker at creation.
 */
export function rfqAudience(input: { named: readonly string[] | null; excluded: readonly string[]; deniers: readonly string[] }): Audience {
  const except = [...new Set([...input.excluded, ...input.deniers])].sort();
  const only = input.named === null ? null : [...new Set(input.named)].filter((id) => !except.includes(id)).sort();
  return { only, except };
}

/** True when an RFQ with this audience reaches the maker with this account id. */
export function reaches(audience: Audience, makerAccountId: string): boolean {
  if (audience.only !== null && !audience.only.includes(makerAccountId)) return false;
  return !audience.except.includes(makerAccountId);
}
