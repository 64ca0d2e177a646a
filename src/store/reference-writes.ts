/**
 * The operator's writes of tokens and instruments (PUT = create or update), and the listings of
 * both. What a node trades on is loaded from the same tables by `reference-data.ts`.
 */
import type { InstrumentsTable, TokensTable } from './schema.ts';
import type { Reader, Tx } from './transaction.ts';

/** The stored decimals of `symbol`, the row locked until the transaction ends; undefined when new. */
export async function lockedTokenDecimals(tx: Tx, symbol: string): Promise<number | undefined> {
  return (await tx.selectFrom('tokens').select('decimals').where('symbol', '=', symbol).forUpdate().executeTakeFirst())?.decimals;
}

/** Creates the token, or updates its address (its decimals never change once stored). */
export async function upsertToken(tx: Tx, token: TokensTable): Promise<void> {
  await tx.insertInto('tokens').values(token).onConflict((oc) => oc.column('symbol').doUpdateSet({ address: token.address, updated_at: token.updated_at })).execute();
}

export async function tokenDecimalsOf(db: Reader, symbols: readonly string[]): Promise<Array<{ symbol: string; decimals: number }>> {
  if (symbols.length === 0) return [];
  return db.selectFrom('tokens').select(['symbol', 'decimals']).where('symbol', 'in', [...symbols]).execute();
}

/** Creates the instrument, or updates its fee, minimum notional and enabled flag (its legs never change). */
export async function upsertInstrument(tx: Tx, row: InstrumentsTable): Promise<void> {
  await tx
    .insertInto('instruments')
    .values(row)
    .onConflict((oc) => oc.column('instrument_id').doUpdateSet({ taker_fee_tenth_bp: row.taker_fee_tenth_bp, min_quote_notional: row.min_quote_notional, enabled: row.enabled, updated_at: row.updated_at }))
    .execute();
}

export async function allTokens(db: Reader) {
  return db.selectFrom('tokens').selectAll().orderBy('symbol').execute();
}

export async function allInstruments(db: Reader) {
  return db.selectFrom('instruments').selectAll().orderBy('instrument_id').execute();
}
