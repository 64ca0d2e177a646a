/**
 * The operator's per-account `/v0` spot fee rates (`v0_fee_rates`, parts per million): an account
 * without a row pays the defaults, which the services hold.
 */
import type { Db, Reader } from './transaction.ts';

/** The account's own rates; undefined when it pays the defaults. */
export async function v0FeeRatesRow(db: Reader, accountId: string): Promise<{ taker_ppm: number; maker_ppm: number } | undefined> {
  return db.selectFrom('v0_fee_rates').select(['taker_ppm', 'maker_ppm']).where('account_id', '=', accountId).executeTakeFirst();
}

/** Whether the account has rates of its own. */
export async function hasOwnV0FeeRates(db: Reader, accountId: string): Promise<boolean> {
  return (await db.selectFrom('v0_fee_rates').select('account_id').where('account_id', '=', accountId).executeTakeFirst()) !== undefined;
}

/** Sets the account's own rates, replacing any earlier ones. */
export async function writeV0FeeRates(db: Db, accountId: string, rates: { takerPpm: number; makerPpm: number }, now: number): Promise<void> {
  await db
    .insertInto('v0_fee_rates')
    .values({ account_id: accountId, taker_ppm: rates.takerPpm, maker_ppm: rates.makerPpm, updated_at: now })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ taker_ppm: rates.takerPpm, maker_ppm: rates.makerPpm, updated_at: now }))
    .execute();
}

/** Removes the account's own rates. */
export async function deleteV0FeeRates(db: Db, accountId: string): Promise<void> {
  await db.deleteFrom('v0_fee_rates').where('account_id', '=', accountId).execute();
}
