/**
 * The `/v0` operations: one TypeBox schema per request (the fields beside `operation`) and per
 * result, the auth each needs and a summary. The route validates with these and
 * `docs/v0-reference.md` is generated from them.
 */
import { Type, type TSchema } from 'typebox';

const IntString = Type.String({ pattern: '^[0-9]+$', description: 'exact integer string' });
const Decimal = Type.String({ description: 'human-readable decimal, e.g. 100 or 100.5' });
const Millis = Type.Integer({ minimum: 0, description: 'unix milliseconds' });
const Limit = Type.Integer({ minimum: 1, maximum: 100 });
const OrderStatus = Type.Union(['pending', 'open', 'filled', 'partially_filled', 'cancelled', 'expired', 'failed'].map((s) => Type.Literal(s)));
const Side = Type.Union([Type.Literal('buy'), Type.Literal('sell')]);
const OrderType = Type.Union([Type.Literal('limit'), Type.Literal('market')]);

const Token = Type.Object({
  name: Type.String(),
  fullName: Type.Union([Type.String(), Type.Null()]),
  index: Type.Integer(),
  tokenId: Type.String(),
  szDecimals: Type.Integer(),
  weiDecimals: Type.Integer(),
  isCanonical: Type.Boolean(),
  evmContract: Type.Union([Type.Object({ address: Type.String(), evm_extra_wei_decimals: Type.Integer() }), Type.Null()]),
});
const Market = Type.Object({ name: Type.String(), baseToken: Type.String(), quoteToken: Type.String(), baseTokenIndex: Type.Integer(), quoteTokenIndex: Type.Integer() });
const Balance = Type.Object({ token: Type.String(), available: IntString, availableFloat: Type.String(), locked: IntString, lockedFloat: Type.String(), total: IntString, totalFloat: Type.String() });
const OrderSummary = Type.Object({ orderId: Type.String(), clientOrderId: Type.Optional(Type.String()), side: Side, orderType: OrderType, baseToken: Type.String(), status: OrderStatus, createdAt: Millis });
const OrderDetail = Type.Object({
  orderId: Type.String(),
  clientOrderId: Type.Optional(Type.String()),
  side: Side,
  orderType: OrderType,
  baseToken: Type.String(),
  quoteToken: Type.String(),
  amount: IntString,
  amountFloat: Type.String(),
  filledAmount: IntString,
  remainingAmount: IntString,
  price: IntString,
  priceFloat: Type.String(),
  averageFillPrice: Type.Optional(IntString),
  filledPrice: Type.Optional(IntString),
  status: OrderStatus,
  expiry: Type.Integer({ description: 'unix seconds; 0 for a resting GTC order' }),
  createdAt: Millis,
  updatedAt: Millis,
  clearingVenue: Type.String(),
  errorMessage: Type.Optional(Type.String()),
});
const Fill = Type.Object({
  orderId: Type.String(),
  clientOrderId: Type.String(),
  orderType: OrderType,
  side: Side,
  baseToken: Type.String(),
  quoteToken: Type.String(),
  price: IntString,
  amount: IntString,
  fee: Type.Union([Type.String(), Type.Null()]),
  fillTime: Millis,
});
const Withdrawal = Type.Object({
  withdrawalId: Type.String(),
  token: Type.String(),
  amount: IntString,
  state: Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('failed')]),
  txHash: Type.Union([Type.String(), Type.Null()]),
  errorMessage: Type.Union([Type.String(), Type.Null()]),
  created_at: Millis,
  updated_at: Millis,
});
const UserOrder = Type.Object({
  orderId: Type.String(),
  side: Side,
  orderType: OrderType,
  baseToken: Type.String(),
  quoteToken: Type.String(),
  amount: IntString,
  amountFloat: Type.String(),
  price: Type.Optional(IntString),
  priceFloat: Type.Optional(Type.String()),
  status: OrderStatus,
  createdAt: Millis,
  updatedAt: Millis,
});
const Pagination = Type.Object({ nextCursor: Type.Optional(Type.String()) });
const Message = Type.Object({ message: Type.String(), orderId: Type.String() });

export interface V0Operation {
  auth: 'none' | 'bearer';
  summary: string;
  request: TSchema;
  result: TSchema;
  /** Layout differences, in words, for the reference page. */
  notes?: string;
}

export const v0Operations = {
  login: {
    auth: 'none',
    summary: 'Sign in with a SIWE message (statement "Sign in with Ethereum to the app."); returns a 24 h JWT.',
    request: Type.Object({ message: Type.Optional(Type.String()), signature: Type.Optional(Type.String()), primaryAddress: Type.Optional(Type.String()) }),
    result: Type.Object({ token: Type.String() }),
  },
  getTokens: { auth: 'none', summary: "The venue's spot tokens.", request: Type.Object({}), result: Type.Object({ tokens: Type.Array(Token) }) },
  getMarkets: { auth: 'none', summary: "The venue's spot pairs whose tokens are both known.", request: Type.Object({}), result: Type.Object({ markets: Type.Array(Market) }) },
  getBalances: { auth: 'bearer', summary: "The caller's balances (tokens with none omitted).", request: Type.Object({}), result: Type.Object({ balances: Type.Array(Balance) }) },
  getFees: {
    auth: 'bearer',
    summary: "The caller's spot fee rates.",
    request: Type.Object({}),
    result: Type.Object({ fees: Type.Object({ spot: Type.Object({ takerRate: Type.String(), makerRate: Type.String(), takerRatePpm: IntString, makerRatePpm: IntString }) }) }),
  },
  createOrder: {
    auth: 'bearer',
    summary: 'Place a spot order at the venue; funds are locked with it.',
    request: Type.Object({ side: Side, orderType: OrderType, baseToken: Type.String({ maxLength: 20 }), quoteToken: Type.String({ maxLength: 20 }), amount: Decimal, price: Type.Optional(Decimal) }),
    result: Message,
    notes: '`wrapped`: tokens USDC and HYPE only; `limit` rests (GTC) and needs `price`; `market` is IOC at the best opposite price plus the slippage cap; `orderId` is a UUID. `flat`: `price` always required, every order IOC; `orderId` is the client order id (0x + 32 hex).',
  },
  cancelOrder: {
    auth: 'bearer',
    summary: 'Cancel a resting GTC order; its remaining lock is freed.',
    request: Type.Object({ orderId: Type.String({ maxLength: 100 }) }),
    result: Message,
    notes: '`wrapped`: `orderId` is the UUID; refusals are CANCELLATION_ERROR. `flat`: `orderId` is the client order id; refusals (unknown, foreign, IOC, finished) are ORDER_ERROR; a malformed or `dord_` id is VALIDATION_ERROR.',
  },
  listDelegatedOrders: {
    auth: 'bearer',
    summary: "The caller's orders, newest first.",
    request: Type.Object({ status: Type.Optional(OrderStatus), orderType: Type.Optional(OrderType), createdAfter: Type.Optional(Millis), createdBefore: Type.Optional(Millis), limit: Type.Optional(Limit), cursor: Type.Optional(Type.String({ maxLength: 200 })) }),
    result: Type.Object({ orders: Type.Array(OrderSummary), pagination: Pagination }),
  },
  getDelegatedOrder: { auth: 'bearer', summary: 'One of the caller\'s orders by `dord_` id.', request: Type.Object({ orderId: Type.String({ pattern: '^dord_', maxLength: 100 }) }), result: Type.Object({ order: OrderDetail }) },
  batchGetDelegatedOrders: {
    auth: 'bearer',
    summary: 'Up to 100 of the caller\'s orders; missing or foreign ids in `notFound`.',
    request: Type.Object({ orderIds: Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 100 }) }),
    result: Type.Object({ orders: Type.Array(OrderDetail), notFound: Type.Array(Type.String()) }),
  },
  listFills: {
    auth: 'bearer',
    summary: "The caller's fills, newest first: one row per venue fill of a limit order, one aggregate row per market order.",
    request: Type.Object({ orderId: Type.Optional(Type.String({ maxLength: 100, description: 'dord_ id or client order id' })), limit: Type.Optional(Limit), cursor: Type.Optional(Type.String({ maxLength: 200 })) }),
    result: Type.Object({ fills: Type.Array(Fill), pagination: Pagination }),
  },
  initiateWithdrawal: {
    auth: 'bearer',
    summary: "Withdraw USDC or HYPE to the caller's venue address (one pending at a time).",
    request: Type.Object({ tokenSymbol: Type.Union([Type.Literal('USDC'), Type.Literal('HYPE')]), amount: Decimal }),
    result: Type.Object({ message: Type.String(), withdrawalId: Type.String() }),
  },
  getWithdrawalStatus: { auth: 'bearer', summary: 'One of the caller\'s withdrawals.', request: Type.Object({ withdrawalId: Type.String({ format: 'uuid' }) }), result: Type.Object({ withdrawal: Withdrawal }) },
  getUserWithdrawals: { auth: 'bearer', summary: "The caller's withdrawals, newest first.", request: Type.Object({}), result: Type.Object({ withdrawals: Type.Array(Withdrawal) }) },
  getUserOrders: {
    auth: 'bearer',
    summary: "The caller's orders, newest first (`wrapped` only; decommissioned in `flat`).",
    request: Type.Object({ status: Type.Optional(OrderStatus) }),
    result: Type.Object({ orders: Type.Array(UserOrder) }),
    notes: '`flat`: refused with VALIDATION_ERROR; use the delegated-order operations.',
  },
} satisfies Record<string, V0Operation>;

export type V0OperationName = keyof typeof v0Operations;

export const ResponseMetadata = Type.Object({ timestamp: Millis, requestId: Type.Optional(Type.String({ format: 'uuid' })) });
export const V0ErrorEnvelope = Type.Object({ operation: Type.Union([Type.String(), Type.Null()]), error: Type.String(), code: Type.String(), responseMetadata: ResponseMetadata });
