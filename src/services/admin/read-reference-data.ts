/**
 * Tokens and instruments as stored (GET /admin/v1/tokens, GET /admin/v1/instruments), read from
 * the database rather than the node's cache so an operator sees a change from another node at once.
 * Disabled instruments are included: the operator is the one who re-enables them.
 */
import { formatAmount } from '../../domain/money/index.ts';
import { allInstruments, allTokens } from '../../store/reference-writes.ts';
import type { ServiceDeps } from '../deps.ts';

export async function listTokens(deps: ServiceDeps) {
  const rows = await allTokens(deps.db);
  return rows.map((t) => ({ symbol: t.symbol, decimals: t.decimals, address: t.address, updatedAt: t.updated_at }));
}

export async function listInstruments(deps: ServiceDeps) {
  const [rows, tokens] = await Promise.all([
    allInstruments(deps.db),
    allTokens(deps.db),
  ]);
  const decimals = new Map(tokens.map((t) => [t.symbol, t.decimals]));
  return rows.map((i) => ({
    instrumentId: i.instrument_id,
    base: i.base,
    quote: i.quote,
    type: i.type,
    takerFeeTenthBp: i.taker_fee_tenth_bp,
    minQuoteNotional: i.min_quote_notional === null ? null : formatAmount(i.min_quote_notional, decimals.get(i.quote) ?? 0),
    enabled: i.enabled,
    updatedAt: i.updated_at,
  }));
}
