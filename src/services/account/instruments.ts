/** Instruments as users see them (spec Instrument plus `minQuoteNotional`, `takerFeeTenthBp`). */
import { formatAmount } from '../../domain/money/index.ts';
import type { ServiceDeps } from '../deps.ts';

export async function listInstruments(deps: ServiceDeps) {
  const reference = await deps.refdata.current();
  return [...reference.instruments.values()]
    .filter((i) => i.enabled)
    .map((i) => ({
      instrumentId: i.instrumentId,
      base: i.base,
      quote: i.quote,
      type: i.type,
      instrumentType: i.type,
      takerFeeTenthBp: i.takerFeeTenthBp,
      ...(i.minQuoteNotional !== null ? { minQuoteNotional: formatAmount(i.minQuoteNotional, i.quoteDecimals) } : {}),
    }));
}
