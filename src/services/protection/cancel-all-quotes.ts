/**
 * POST /v1/rfq/quotes/cancel-all (DESIGN.md section 15): the maker's one-call kill switch. Every
 * `SUBMITTED` quote of the maker (on one instrument when it names one) is cancelled as by its own
 * cancel (cancel-open-quotes.ts: one quote per transaction, the same frames), so a quote selected
 * meanwhile is left to its selection. The dead man's switch fires through the same call.
 */
import type { ServiceDeps } from '../deps.ts';
import { resolveInstrument } from '../rfq/create-rfq.ts';
import { cancelOpenQuotes } from './cancel-open-quotes.ts';
import { openQuoteIdsOfMaker } from '../../store/open-quotes.ts';

/** Quotes read per round; rounds go on until a round finds fewer. */
const CANCEL_BATCH = 200;

export async function cancelAllQuotes(deps: ServiceDeps, accountId: string, instrumentId: string | null = null): Promise<{ cancelled: number }> {
  const instrument = instrumentId === null ? null : (await resolveInstrument(deps, instrumentId)).instrumentId;
  let cancelled = 0;
  for (;;) {
    const ids = (await openQuoteIdsOfMaker(deps.db, accountId, instrument, CANCEL_BATCH)).map((id) => ({ id, makerAccountId: accountId }));
    const round = await cancelOpenQuotes(deps, ids);
    cancelled += round;
    // A round that cancelled nothing read only quotes that stopped being open meanwhile.
    if (ids.length < CANCEL_BATCH || round === 0) return { cancelled };
  }
}
