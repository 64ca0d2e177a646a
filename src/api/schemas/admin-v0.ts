/** Schemas of the operator's `/v0` views: orders, withdrawals and per-account fee rates (DESIGN.md section 10). */
import { Type } from 'typebox';
import { EvmAddress, Nullable, Page, PageQuery, TokenSymbol, UnixMillis } from './common.ts';

const Account = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: "The owner's address." });
const ExactInteger = (description: string) => Type.String({ pattern: '^[0-9]+$', description });

export const V0OrderStatus = Type.Union([
  Type.Literal('pending'), Type.Literal('open'), Type.Literal('filled'), Type.Literal('partially_filled'),
  Type.Literal('cancelled'), Type.Literal('expired'), Type.Literal('failed'),
]);
export const V0WithdrawalState = Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('failed')]);

export const AdminV0OrdersQuery = Type.Object({ ...PageQuery.properties, status: Type.Optional(V0OrderStatus), account: Type.Optional(Account) }, { additionalProperties: false });
export const AdminV0WithdrawalsQuery = Type.Object({ ...PageQuery.properties, state: Type.Optional(V0WithdrawalState), account: Type.Optional(Account) }, { additionalProperties: false });

export const AdminV0Order = Type.Object({
  orderId: Type.String({ description: 'The delegated-order id (dord_...).' }),
  orderUuid: Type.String({ description: 'The UUID wrapped-layout createOrder returns.' }),
  clientOrderId: Type.String({ description: 'The venue cloid (0x + 32 hex), what flat-layout createOrder returns.' }),
  accountAddress: EvmAddress,
  side: Type.Union([Type.Literal('buy'), Type.Literal('sell')]),
  orderType: Type.Union([Type.Literal('limit'), Type.Literal('market')]),
  timeInForce: Type.Union([Type.Literal('Ioc'), Type.Literal('Gtc')]),
  baseToken: TokenSymbol,
  quoteToken: TokenSymbol,
  amount: ExactInteger('x 10^weiDecimals of the base token, as /v0 reports it.'),
  price: ExactInteger('x 10^8.'),
  filledAmount: ExactInteger('Booked so far, x 10^weiDecimals of the base token.'),
  status: V0OrderStatus,
  cancelRequested: Type.Boolean(),
  venueOrderId: Nullable(Type.Integer({ description: "The venue's oid, once it answered." })),
  errorMessage: Nullable(Type.String()),
  createdAt: UnixMillis,
  updatedAt: UnixMillis,
});
export const AdminV0OrdersPage = Page(AdminV0Order);

export const AdminV0Withdrawal = Type.Object({
  withdrawalId: Type.String(),
  accountAddress: EvmAddress,
  token: TokenSymbol,
  amount: Type.String({ description: 'Decimal string in the token (ledger decimals).' }),
  toAddress: EvmAddress,
  state: V0WithdrawalState,
  txHash: Nullable(Type.String({ description: "The venue transfer's hash, once completed." })),
  errorMessage: Nullable(Type.String({ description: "The venue's refusal, when failed." })),
  createdAt: UnixMillis,
  updatedAt: UnixMillis,
});
export const AdminV0WithdrawalsPage = Page(AdminV0Withdrawal);

const Ppm = Type.Integer({ minimum: 0, maximum: 100_000, description: 'Parts per million of the token received (700 = 0.07 %).' });
export const V0FeeRatesBody = Type.Object({ takerPpm: Ppm, makerPpm: Ppm }, { additionalProperties: false });
export const V0FeeRates = Type.Object({
  address: EvmAddress,
  takerPpm: Type.Integer(),
  makerPpm: Type.Integer(),
  source: Type.Union([Type.Literal('account'), Type.Literal('default')], { description: "account: the operator set this account's rates; default: the service's defaults apply." }),
});
