/**
 * The cancel half of market-maker protection: a selection that trips a setting commits the trip
 * (selection-guard.ts); this sweep, run by every node, then cancels the maker's `SUBMITTED` quotes
 * on open RFQs of that instrument as by its own cancel. Because it runs until none is left, a
 * quote that raced the trip (checked before it, written after) is cancelled by the next round.
 */
import type { ServiceDeps } from '../deps.ts';
import { cancelOpenQuotes } from './cancel-open-quotes.ts';
import { trippedProtectionPairs } from '../../store/maker-protections.ts';
import { openQuotesOfPairs } from '../../store/open-quotes.ts';

/** Quotes cancelled in one round at most; the next round takes the rest. */
const SWEEP_BATCH = 200;

/**
 * Runs on every node every 250 ms (presence.ts), so its usual answer, "nothing tripped", must not
 * cost in proportion to the open quotes. It reads the tripped settings first (a partial index,
 * nearly always empty) and only then their makers' quotes. As one join, PostgreSQL planned it
 * from the open RFQs through all their quotes to the (empty) settings: 52 ms per round with
 * 10,000 open quotes, a fifth of a core at four rounds a second (measured on the benchmark's database).
 */
export async function sweepTrippedProtections(deps: ServiceDeps): Promise<number> {
  const tripped = await trippedProtectionPairs(deps.db);
  if (tripped.length === 0) return 0;
  const rows = await openQuotesOfPairs(deps.db, tripped, SWEEP_BATCH);
  return cancelOpenQuotes(deps, rows.map((r) => ({ id: r.id, makerAccountId: r.maker_account_id })));
}
