/** The `spotSend`s to the omnibus credited as `/v0` deposits (`venue_deposits`), one row per venue hash. */
import type { Insertable } from 'kysely';
import type { VenueDepositsTable } from './schema.ts';
import type { Tx } from './transaction.ts';

/** Whether the transfer with this hash was already credited. */
export async function venueDepositCredited(tx: Tx, hash: string): Promise<boolean> {
  return (await tx.selectFrom('venue_deposits').select('hash').where('hash', '=', hash).executeTakeFirst()) !== undefined;
}

export async function insertVenueDeposit(tx: Tx, row: Insertable<VenueDepositsTable>): Promise<void> {
  await tx.insertInto('venue_deposits').values(row).execute();
}
