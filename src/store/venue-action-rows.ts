/**
 * The omnibus's signed venue actions (`venue_actions`) as stored before they are sent: at most one
 * a kind per owner. Their status moves only through src/store/venue-action-status.ts.
 */
import type { Insertable } from 'kysely';
import type { VenueActionsTable } from './schema.ts';
import type { Reader } from './transaction.ts';

/** Stores the action unless its owner already has one of its kind; false when nothing was stored. */
export async function insertVenueActionUnlessOwned(db: Reader, row: Insertable<VenueActionsTable>): Promise<boolean> {
  const stored = await db.insertInto('venue_actions').values(row).onConflict((oc) => oc.columns(['owner_id', 'kind']).doNothing()).executeTakeFirst();
  return stored.numInsertedOrUpdatedRows === 1n;
}
