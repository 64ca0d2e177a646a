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
import { armSwitch, disarmSwitch, removeFiredSwitch, switchFiresAt, switchesDue } from '../../store/cancel-all-after.ts';

export interface CancelAllAfterView {
  /** When the switch fires (ms since the epoch); null while disarmed. */
  firesAt: number | null;
}

export async function armCancelAllAfter(deps: ServiceDeps, accountId: string, timeoutMs: number): Promise<CancelAllAfterView> {
  const now = deps.clock.now();
  if (timeoutMs === 0) {
    await disarmSwitch(deps.db, accountId);
    return { firesAt: null };
  }
  const firesAt = now + timeoutMs;
  await armSwitch(deps.db, accountId, firesAt, now);
  return { firesAt };
}

export async function readCancelAllAfter(deps: ServiceDeps, accountId: string): Promise<CancelAllAfterView> {
  return { firesAt: await switchFiresAt(deps.db, accountId) };
}

/** Fires every switch that is due; answers how many quotes it cancelled. */
export async function sweepDeadMansSwitches(deps: ServiceDeps): Promise<number> {
  const due = await switchesDue(deps.db, deps.clock.now(), 50);
  let cancelled = 0;
  for (const row of due) {
    cancelled += (await cancelAllQuotes(deps, row.maker_account_id)).cancelled;
    await removeFiredSwitch(deps.db, row.maker_account_id, row.fires_at);
  }
  return cancelled;
}
