/**
 * The cancel half of market-maker protection: a selection that trips a setting commits the trip
 * (selection-guard.ts); this sweep, run by every node, then cancels the maker's `SUBMITTED` quotes
 * on open RFQs of that instrument as by its own cancel. Because it runs until none is left, a
 * quote that raced the trip (checked before it, written after) is cancelled by the next round.
 */
import { sql } from 'kysely';
import type { ServiceDeps } from '../deps.ts';
import { cancelOpenQuotes } from './cancel-open-quotes.ts';

/** Quotes cancelled in one round at most; the next round takes the rest. */
const SWEEP_BATCH = 200;

export async function sweepTrippedProtections(deps: ServiceDeps): Promise<number> {
  const rows = await sql<{ id: string; maker_account_id: string }>`
    select q.id, q.maker_account_id
    from maker_protections p
    join quotes q on q.maker_account_id = p.maker_account_id and q.status = 'SUBMITTED'
    join rfqs r on r.id = q.rfq_id and r.status = 'PENDING' and r.instrument_id = p.instrument_id
    where p.triggered_at is not null
    order by q.id
    limit ${SWEEP_BATCH}
  `.execute(deps.db);
  return cancelOpenQuotes(deps, rows.rows.map((r) => ({ id: r.id, makerAccountId: r.maker_account_id })));
}
