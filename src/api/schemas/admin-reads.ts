/** Schemas of the operator's read views (GET /admin/v1/rfqs, deposits, tokens, instruments, maker failures). */
import { Type } from 'typebox';
import { DecimalString, EvmAddress, InstrumentId, Nullable, Page, TokenSymbol, UnixMillis } from './common.ts';
import { Quote, Rfq } from './rfq.ts';
import { Deposit } from './funds.ts';
import { InstrumentType } from './account.ts';

export const AdminQuote = Type.Object({
  ...Quote.properties,
  makerId: Type.String(),
  makerAddress: EvmAddress,
  settlementMode: Type.String(),
  settledAt: Type.Optional(UnixMillis),
  txHash: Type.Optional(Type.String()),
});

export const AdminRfq = Type.Object({
  ...Rfq.properties,
  accountId: Type.String(),
  takerAddress: EvmAddress,
  selectedQuoteId: Type.Optional(Type.String()),
  quotes: Type.Array(AdminQuote, { description: 'Every quote on the RFQ, newest first, maker named.' }),
});
export const AdminRfqsPage = Page(AdminRfq);

export const AdminDeposit = Type.Object({
  ...Deposit.properties,
  accountAddress: Nullable(EvmAddress),
  fromAddress: EvmAddress,
  blockNumber: Type.Integer(),
  logIndex: Type.Integer(),
});
export const AdminDepositsPage = Page(AdminDeposit);

export const TokenView = Type.Object({ symbol: TokenSymbol, decimals: Type.Integer(), address: Nullable(Type.String()), updatedAt: UnixMillis });
export const InstrumentView = Type.Object({
  instrumentId: InstrumentId,
  base: TokenSymbol,
  quote: TokenSymbol,
  type: InstrumentType,
  takerFeeTenthBp: Type.Integer(),
  minQuoteNotional: Nullable(DecimalString),
  enabled: Type.Boolean(),
  updatedAt: UnixMillis,
});

export const MakerFailures = Type.Object({
  makerId: Type.String(),
  address: EvmAddress,
  suspendedUntil: Nullable(UnixMillis),
  suspensionCount: Type.Integer(),
  lastSuspendedAt: Nullable(UnixMillis),
  failures: Type.Array(Type.Object({ quoteId: Type.String(), rfqId: Type.String(), reason: Type.String(), createdAt: UnixMillis })),
});
