/**
 * A maker's disclosure (DESIGN.md section 15): `PUT /v1/rfq/maker/profile { alias }` publishes an
 * alias takers may name or exclude (null withdraws it: the maker is anonymous again, and RFQs
 * already naming it keep their audience); `GET /v1/rfq/makers` lists the published aliases to any
 * signed-in account. Nothing else about a maker is ever shown under its alias.
 */
import { ServiceError, invalidRequest } from '../../domain/errors.ts';
import { aliasKey, parseAlias } from '../../domain/rfq/index.ts';
import { activeMakersByAliasKey, disclosedAliases, makerAliasOf, writeMakerAlias } from '../../store/maker-conduct.ts';
import type { ServiceDeps } from '../deps.ts';

export interface MakerProfile {
  alias: string | null;
}

function makerRequired(): ServiceError {
  return new ServiceError('MAKER_NOT_APPROVED', 'this account is not a registered maker');
}

/** Postgres's unique_violation, as both drivers report it. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

export async function readMakerProfile(deps: ServiceDeps, accountId: string): Promise<MakerProfile> {
  const row = await makerAliasOf(deps.db, accountId);
  if (!row) throw makerRequired();
  return { alias: row.alias };
}

export async function setMakerProfile(deps: ServiceDeps, accountId: string, input: { alias: string | null }): Promise<MakerProfile> {
  const alias = input.alias === null ? null : parseAlias(input.alias);
  try {
    const row = await writeMakerAlias(deps.db, accountId, alias, deps.clock.now());
    if (!row) throw makerRequired();
    return { alias: row.alias };
  } catch (error) {
    // The unique index on lower(alias) decides between two makers claiming one alias at once.
    if (isUniqueViolation(error)) throw new ServiceError('ALIAS_TAKEN', `another maker publishes the alias ${alias}`, { alias });
    throw error;
  }
}

/** Every published alias, in order; only active makers, so a taker never names one that cannot quote. */
export async function listDisclosedMakers(deps: ServiceDeps): Promise<{ makers: Array<{ alias: string }> }> {
  const aliases = (await disclosedAliases(deps.db)).sort((a, b) => (aliasKey(a) < aliasKey(b) ? -1 : aliasKey(a) > aliasKey(b) ? 1 : 0));
  return { makers: aliases.map((alias) => ({ alias })) };
}

/**
 * The maker account ids the aliases name, in the request's field: an unknown alias (or one of an
 * inactive maker) is INVALID_REQUEST naming its index.
 */
export async function makersByAlias(deps: ServiceDeps, aliases: readonly string[], field: string): Promise<string[]> {
  if (aliases.length === 0) return [];
  const keys = aliases.map(aliasKey);
  const rows = await activeMakersByAliasKey(deps.db, keys);
  const byKey = new Map(rows.map((r) => [aliasKey(r.alias), r.accountId]));
  const errors = aliases.flatMap((alias, i) => (byKey.has(aliasKey(alias)) ? [] : [{ field: `${field}[${i}]`, reason: 'unknownAlias', message: `no disclosed maker is called ${alias}` }]));
  if (errors.length > 0) throw invalidRequest(errors, errors[0]!.message);
  return keys.map((key) => byKey.get(key)!);
}
