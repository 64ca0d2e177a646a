/**
 * The one writer of a venue action's status: every change is a compare-and-set on the statuses
 * `venueActionTransition` names (src/domain/venue/venue-action-status.ts).
 */
import type { RawBuilder, Updateable } from 'kysely';
import type { VenueActionStatus } from '../domain/venue/venue-action-status.ts';
import type { VenueActionsTable } from './schema.ts';
import { compareAndSetStatusIfStill, type StatusChangeIfStill } from './status-change.ts';
import type { Reader } from './transaction.ts';

/**
 * Columns a transition sets beside the status (the venue's answer); a send counts itself with
 * `ONE_MORE_SEND` (status-change.ts).
 */
export type VenueActionFields = Omit<Updateable<VenueActionsTable>, 'id' | 'status' | 'updated_at' | 'send_attempts'> & { send_attempts?: RawBuilder<number> };

/** Writes one action's transition if it is still in (one of) `from`; returns whether it was written. */
export async function writeVenueActionStatusIfStill(db: Reader, change: StatusChangeIfStill<VenueActionStatus, VenueActionFields>, now: number): Promise<boolean> {
  return (await compareAndSetStatusIfStill(db, 'venue_actions', change, now)) !== undefined;
}
