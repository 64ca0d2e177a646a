/** The maker's dead man's switch (`maker_cancel_all_after`): one armed deadline per maker, or none. */
import type { Db, Reader } from './transaction.ts';

/** Arms the maker's switch to fire at `firesAt`, or pushes it back there. */
export async function armSwitch(db: Db, makerAccountId: string, firesAt: number, now: number): Promise<void> {
  await db
    .insertInto('maker_cancel_all_after')
    .values({ maker_account_id: makerAccountId, fires_at: firesAt, armed_at: now })
    .onConflict((oc) => oc.column('maker_account_id').doUpdateSet({ fires_at: firesAt, armed_at: now }))
    .execute();
}

export async function disarmSwitch(db: Db, makerAccountId: string): Promise<void> {
  await db.deleteFrom('maker_cancel_all_after').where('maker_account_id', '=', makerAccountId).execute();
}

/** When the maker's switch fires; null while disarmed. */
export async function switchFiresAt(db: Reader, makerAccountId: string): Promise<number | null> {
  const row = await db.selectFrom('maker_cancel_all_after').select('fires_at').where('maker_account_id', '=', makerAccountId).executeTakeFirst();
  return row?.fires_at ?? null;
}

/** The switches due by `now`, earliest first, at most `limit`. */
export async function switchesDue(db: Reader, now: number, limit: number): Promise<Array<{ maker_account_id: string; fires_at: number }>> {
  return db.selectFrom('maker_cancel_all_after').select(['maker_account_id', 'fires_at']).where('fires_at', '<=', now).orderBy('fires_at').limit(limit).execute();
}

/** Removes a fired switch only while it still holds the deadline it fired at (a push-back since keeps its own). */
export async function removeFiredSwitch(db: Db, makerAccountId: string, firedAt: number): Promise<void> {
  await db.deleteFrom('maker_cancel_all_after').where('maker_account_id', '=', makerAccountId).where('fires_at', '=', firedAt).execute();
}
