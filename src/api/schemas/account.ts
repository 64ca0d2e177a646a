import { Type } from 'typebox';
import { DecimalString, InstrumentId, SignedDecimalString, TokenSymbol, UnixMillis, Nullable } from './common.ts';

export const Rail = Type.Union([Type.Literal('EVM'), Type.Literal('VENUE')]);
export const InstrumentType = Type.Union([Type.Literal('SPOT'), Type.Literal('PERP')]);

export const Instrument = Type.Object({
  instrumentId: InstrumentId,
  base: TokenSymbol,
  quote: TokenSymbol,
  type: InstrumentType,
  instrumentType: InstrumentType,
  takerFeeTenthBp: Type.Integer(),
  minQuoteNotional: Type.Optional(DecimalString),
});
export const InstrumentList = Type.Object({ instruments: Type.Array(Instrument) });

export const Balance = Type.Object({
  token: TokenSymbol,
  rail: Rail,
  available: DecimalString,
  locked: DecimalString,
  total: DecimalString,
});
export const BalanceList = Type.Object({ balances: Type.Array(Balance) });

export const LedgerView = Type.Object({
  ledgerId: Type.String({ format: 'uuid' }),
  token: TokenSymbol,
  rail: Rail,
  delta: SignedDecimalString,
  source: Type.String(),
  /** Additive: the RFQ this entry belongs to, on the entries of a trade. */
  rfqId: Type.Optional(Type.String()),
  createdAt: UnixMillis,
});
export const LedgerPage = Type.Object({
  entries: Type.Array(LedgerView),
  hasMore: Type.Boolean(),
  nextCursor: Type.Optional(Nullable(Type.String())),
});
