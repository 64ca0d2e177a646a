/**
 * The maker rows behind a maker's conduct choices (migration 0203): its published alias, the
 * takers it denies, and which makers deny a taker. The services decide; these read and write.
 */
import type { Db, Reader, Tx } from './transaction.ts';

/** The takers (account ids) the maker denies; null when the account is not a maker. */
export async function deniedTakersOf(db: Reader, accountId: string): Promise<string[] | null> {
  const row = await db.selectFrom('makers').select('denied_takers').where('account_id', '=', accountId).executeTakeFirst();
  return row ? row.denied_takers : null;
}

/** Replaces the maker's denied takers. */
export async function writeDeniedTakers(db: Db, accountId: string, takers: readonly string[], now: number): Promise<void> {
  await db.updateTable('makers').set({ denied_takers: [...takers], updated_at: now }).where('account_id', '=', accountId).execute();
}

/** One keyset page of account ids after `after` (null: from the first), in id order. */
export async function accountIdsAfter(db: Reader, after: string | null, limit: number): Promise<string[]> {
  let page = db.selectFrom('accounts').select('id').orderBy('id').limit(limit);
  if (after !== null) page = page.where('id', '>', after);
  return (await page.execute()).map((r) => r.id);
}

/** The maker's alias row: `{ alias }` (null alias: undisclosed); undefined when the account is not a maker. */
export async function makerAliasOf(db: Reader, accountId: string): Promise<{ alias: string | null } | undefined> {
  return db.selectFrom('makers').select('alias').where('account_id', '=', accountId).executeTakeFirst();
}

/**
 * Sets the maker's alias; undefined when the account is not a maker. Two makers claiming one alias
 * at once meet the unique index on lower(alias): the caller sees Postgres's unique_violation.
 */
export async function writeMakerAlias(db: Db, accountId: string, alias: string | null, now: number): Promise<{ alias: string | null } | undefined> {
  return db.updateTable('makers').set({ alias, updated_at: now }).where('account_id', '=', accountId).returning('alias').executeTakeFirst();
}

/** The published aliases of active makers, unordered. */
export async function disclosedAliases(db: Reader): Promise<string[]> {
  const rows = await db.selectFrom('makers').select('alias').where('alias', 'is not', null).where('active', '=', true).execute();
  return rows.map((r) => r.alias!);
}

/** Active makers whose alias, lower-cased, is one of `keys`. */
export async function activeMakersByAliasKey(db: Reader, keys: readonly string[]): Promise<Array<{ accountId: string; alias: string }>> {
  if (keys.length === 0) return [];
  const rows = await db
    .selectFrom('makers')
    .select(['account_id', 'alias'])
    .where('alias', 'is not', null)
    .where('active', '=', true)
    .where((eb) => eb(eb.fn('lower', ['alias']), 'in', [...keys]))
    .execute();
  return rows.map((r) => ({ accountId: r.account_id, alias: r.alias! }));
}

/** The makers (account ids) that deny `takerAccountId`; the makers table is small, each row reads its own list. */
export async function makersDenying(tx: Tx, takerAccountId: string): Promise<string[]> {
  const rows = await tx.selectFrom('makers').select('account_id').where((eb) => eb(eb.val(takerAccountId), '=', eb.fn.any('denied_takers'))).execute();
  return rows.map((r) => r.account_id);
}
