/**
 * The maker's dead man's switch (DESIGN.md section 15): `POST /v1/rfq/maker/cancel-all-after
 * { timeoutMs }` arms it to fire `timeoutMs` from now (each call pushes it back; 0 disarms); when
 * it is not pushed back in time, all the maker's open quotes are cancelled as by cancel-all.
 *
 * The armed deadline is a row in the store, not a timer of the node that took the call: every
 * node's protection sweep (every 250 ms) fires what is due, so the switch fires on time also
 * when that node has died. A firing removes the row only if it still holds the deadline it fired
 * (a push-back that raced the firing keeps its new deadline); a node dying mid-firing leaves the
 * row for the next sweep, whose cancels of already-cancelled quotes are no-ops.
 */
import type { ServiceDeps } from '../deps.ts';
import { cancelAllQuotes } from './cancel-all-quotes.ts';

export interface CancelAllAfterView {
  /** When the switch fires (ms since the epoch); null while disarmed. */
  firesAt: number | null;
}

export async function armCancelAllAfter(deps: ServiceDeps, accountId: string, timeoutMs: number): Promise<CancelAllAfterView> {
  const now = deps.clock.now();
  if (timeoutMs === 0) {
    await deps.db.deleteFrom('maker_cancel_all_after').where('maker_account_id', '=', accountId).execute();
    return { firesAt: null };
  }
  const firesAt = now + timeoutMs;
  await deps.db
    .insertInto('maker_cancel_all_after')
    .values({ maker_account_id: accountId, fires_at: firesAt, armed_at: now })
    .onConflict((oc) => oc.column('maker_account_id').doUpdateSet({ fires_at: firesAt, armed_at: now }))
    .execute();
  return { firesAt };
}

export async function readCancelAllAfter(deps: ServiceDeps, accountId: string): Promise<CancelAllAfterView> {
  const row = await deps.db.selectFrom('maker_cancel_all_after').select('fires_at').where('maker_account_id', '=', accountId).executeTakeFirst();
  return { firesAt: row?.fires_at ?? null };
}

/** Fires every switch that is due; answers how many quotes it cancelled. */
export async function sweepDeadMansSwitches(deps: ServiceDeps): Promise<number> {
  const due = await deps.db
    .selectFrom('maker_cancel_all_after')
    .select(['maker_account_id', 'fires_at'])
    .where('fires_at', '<=', deps.clock.now())
    .orderBy('fires_at')
    .limit(50)
    .execute();
  let cancelled = 0;
  for (const row of due) {
    cancelled += (await cancelAllQuotes(deps, row.maker_account_id)).cancelled;
    await deps.db.deleteFrom('maker_cancel_all_after').where('maker_account_id', '=', row.maker_account_id).where('fires_at', '=', row.fires_at).execute();
  }
  return cancelled;
}
