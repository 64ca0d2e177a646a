/** A venue read's persisted position (migration 0188): the venue time (ms) up to which it has read. */
import type { Reader } from './transaction.ts';

export async function readVenueCursor(db: Reader, name: string): Promise<number | null> {
  const row = await db.selectFrom('venue_cursors').select('position_ms').where('name', '=', name).executeTakeFirst();
  return row ? Number(row.position_ms) : null;
}

/** Moves the cursor forward to `positionMs` (never back: two nodes reading the same account agree). */
export async function advanceVenueCursor(db: Reader, name: string, positionMs: number, at: number): Promise<void> {
  await db
    .insertInto('venue_cursors')
    .values({ name, position_ms: positionMs, updated_at: at })
    .onConflict((oc) => oc.column('name').doUpdateSet({ position_ms: (eb) => eb.fn('greatest', [eb.ref('venue_cursors.position_ms'), eb.ref('excluded.position_ms')]), updated_at: at }))
    .execute();
}
