/** Operator writes of tokens and instruments (PUT = create or update). */
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { parseAmount } from '../../domain/money/index.ts';
import { lockedTokenDecimals, tokenDecimalsOf, upsertInstrument, upsertToken } from '../../store/reference-writes.ts';
import type { ServiceDeps } from '../deps.ts';
import { checkPerpInstrument } from '../perp/perp-instrument.ts';

export interface TokenInput { decimals: number; address?: string | null }

export async function putToken(deps: ServiceDeps, symbol: string, input: TokenInput) {
  const now = deps.clock.now();
  const values = { symbol, decimals: input.decimals, address: input.address ?? null, updated_at: now };
  await deps.db.transaction().execute(async (tx) => {
    const stored = await lockedTokenDecimals(tx, symbol);
    // Changing decimals would silently rescale every stored amount of this token.
    if (stored !== undefined && stored !== input.decimals) {
      throw new ServiceError('CONFLICT', `decimals of ${symbol} cannot change (stored ${stored})`);
    }
    await upsertToken(tx, values);
  });
  await deps.refdata.reload();
  return { symbol, decimals: input.decimals, address: input.address ?? null };
}

export interface InstrumentInput {
  base: string;
  quote: string;
  type: 'SPOT' | 'PERP';
  takerFeeTenthBp: number;
  minQuoteNotional?: string | null;
  enabled?: boolean;
}

export async function putInstrument(deps: ServiceDeps, instrumentId: string, input: InstrumentInput) {
  if (instrumentId !== `${input.base}-${input.quote}-${input.type}`) {
    throw invalidField('instrumentId', 'mismatch', `instrumentId must be ${input.base}-${input.quote}-${input.type}`);
  }
  // A perp's base is a venue coin, not a token: it is checked against the venue's meta instead.
  if (input.type === 'PERP') await checkPerpInstrument(deps, input);
  const now = deps.clock.now();
  const result = await deps.db.transaction().execute(async (tx) => {
    const tokens = await tokenDecimalsOf(tx, [input.base, input.quote]);
    const quoteToken = tokens.find((t) => t.symbol === input.quote);
    if (input.type !== 'PERP' && !tokens.some((t) => t.symbol === input.base)) throw new ServiceError('TOKEN_NOT_FOUND', `token ${input.base} is not listed`);
    if (!quoteToken) throw new ServiceError('TOKEN_NOT_FOUND', `token ${input.quote} is not listed`);
    const minQuoteNotional =
      input.minQuoteNotional === undefined || input.minQuoteNotional === null
        ? null
        : parseAmount(input.minQuoteNotional, quoteToken.decimals, { field: 'minQuoteNotional' });
    const row = {
      instrument_id: instrumentId,
      base: input.base,
      quote: input.quote,
      type: input.type,
      taker_fee_tenth_bp: input.takerFeeTenthBp,
      min_quote_notional: minQuoteNotional,
      enabled: input.enabled ?? true,
      updated_at: now,
    };
    await upsertInstrument(tx, row);
    return { instrumentId, base: input.base, quote: input.quote, type: input.type, takerFeeTenthBp: input.takerFeeTenthBp, minQuoteNotional: input.minQuoteNotional ?? null, enabled: row.enabled };
  });
  await deps.refdata.reload();
  return result;
}
