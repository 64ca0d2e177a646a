/** Schemas of the RFQ surface (spec: Rfq, Quote, MakerQuote, OpenRfq, request bodies). */
import { Type } from 'typebox';
import { DecimalString, InstrumentId, Nullable, Page, PositiveDecimalString, Side, TokenSymbol, UnixMillis, UnixSeconds } from './common.ts';

export const RfqStatus = Type.Union([Type.Literal('PENDING'), Type.Literal('QUOTED'), Type.Literal('SETTLED'), Type.Literal('FAILED'), Type.Literal('CANCELLED')]);
export const QuoteStatus = Type.Union([
  Type.Literal('SUBMITTED'), Type.Literal('SELECTED'), Type.Literal('NOT_SELECTED'), Type.Literal('EXPIRED'),
  Type.Literal('SETTLED'), Type.Literal('FAILED'), Type.Literal('CANCELLED'),
]);
const Id = Type.String({ minLength: 1, maxLength: 100 });

export const QuoteLeg = Type.Object({ token: TokenSymbol, amount: PositiveDecimalString }, { additionalProperties: false });
const QuoteLegOut = Type.Object({ token: TokenSymbol, amount: DecimalString });

// Maker settlement bundle (spec, "xchange mode"): shape only; what it must say is checked by the
// service (XCHANGE_BUNDLE_INVALID). Amounts and expiration are unsigned integers as strings.
const UintString = Type.String({ pattern: '^[0-9]{1,78}$', description: 'Unsigned integer (raw base units or unix seconds) as a decimal string.' });
const AnyCaseAddress = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$' });
const SwapTransfer = Type.Object({ token: AnyCaseAddress, from: AnyCaseAddress, to: AnyCaseAddress, amount: UintString }, { additionalProperties: false });
export const XchangeBundle = Type.Object(
  {
    adapter: Type.String({ minLength: 1, maxLength: 64, description: 'Settlement adapter name; this service operates `RfqXchangeAdapter`.' }),
    settlement: Type.Object(
      {
        swapMessage: Type.Object(
          {
            quoteId: Type.String({ minLength: 1, maxLength: 100 }),
            expiration: UintString,
            incomingTransfer: SwapTransfer,
            outgoingTransfer: SwapTransfer,
          },
          { additionalProperties: false },
        ),
        adapterSignature: Type.String({ pattern: '^0x[0-9a-fA-F]{130}$', description: '65-byte signature (r || s || v), 0x hex.' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

/** Aliases of disclosed makers; the alias rule itself is the domain's (src/domain/rfq/counterparties.ts). */
function MakerAliases(description: string) {
  return Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { minItems: 1, maxItems: 50, description });
}

export const TakerPseudonym = Type.String({ pattern: '^tkr_[a-z2-7]{16}$', description: "The viewing maker's own pseudonym for a taker: stable, different for every maker, never an address." });

export const RfqFill = Type.Union([Type.Literal('ALL'), Type.Literal('SWEEP')], {
  description: 'ALL (default): one maker fills the whole size. SWEEP: several makers may fill it, each quote its own leg.',
});

export const CreateRfqRequest = Type.Object(
  {
    instrumentId: InstrumentId,
    side: Side,
    baseQty: PositiveDecimalString,
    quoteLimit: Type.Optional(Nullable(PositiveDecimalString)),
    autoAccept: Type.Optional(Type.Boolean()),
    windowMs: Type.Optional(Nullable(Type.Integer())),
    windowSecs: Type.Optional(Nullable(Type.Integer())),
    idempotencyKey: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
    makers: Type.Optional(Nullable(MakerAliases('Only these disclosed makers see the RFQ and may quote (GET /v1/rfq/makers lists them).'))),
    excludeMakers: Type.Optional(Nullable(MakerAliases('The RFQ never reaches these disclosed makers. Not together with makers.'))),
    fill: Type.Optional(RfqFill),
    minFillQty: Type.Optional(Nullable(PositiveDecimalString)),
  },
  { additionalProperties: false },
);
export const CreateRfqResponse = Type.Object({ rfqId: Type.String(), status: RfqStatus, auctionEndsAt: UnixMillis, expiresAt: UnixMillis });

export const SweepFill = Type.Object({
  quoteId: Type.String(),
  /** The base the leg moves. */
  baseQty: DecimalString,
  /** The quote-token amount the leg moves between maker and taker, before the taker fee. */
  quoteQty: DecimalString,
  status: QuoteStatus,
  txHash: Type.Optional(Type.String()),
});

export const Rfq = Type.Object({
  id: Type.String(),
  instrumentId: InstrumentId,
  side: Side,
  baseQty: DecimalString,
  status: RfqStatus,
  autoAccept: Type.Boolean(),
  createdAt: UnixMillis,
  auctionEndsAt: UnixMillis,
  expiresAt: UnixMillis,
  settlementDeadline: UnixSeconds,
  quoteLimit: Type.Optional(DecimalString),
  quotedAt: Type.Optional(UnixMillis),
  settledAt: Type.Optional(UnixMillis),
  executedPayAmount: Type.Optional(DecimalString),
  executedRecvAmount: Type.Optional(DecimalString),
  takerFee: Type.Optional(DecimalString),
  txHash: Type.Optional(Type.String()),
  failureCode: Type.Optional(Type.String()),
  failureReason: Type.Optional(Type.String()),
  /** Additive, perp only: the quote that executed (after a cascade, the promoted backup). */
  selectedQuoteId: Type.Optional(Type.String()),
  /** Additive, SWEEP only (absent on an ALL RFQ). */
  fill: Type.Optional(Type.Literal('SWEEP')),
  minFillQty: Type.Optional(DecimalString),
  /** Additive, SWEEP only, once selected: one per selected quote in rank order. */
  fills: Type.Optional(Type.Array(SweepFill)),
});

export const Quote = Type.Object({
  rfqId: Type.String(),
  quoteId: Type.String(),
  version: Type.Integer(),
  instrumentId: InstrumentId,
  side: Side,
  status: QuoteStatus,
  makerPays: QuoteLegOut,
  makerReceives: QuoteLegOut,
  takerTotal: DecimalString,
  receivedAt: UnixMillis,
  acceptableForMs: Type.Optional(Type.Integer()),
  expiryMs: Type.Optional(UnixMillis),
  builderFeeTenthBp: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  perpFilledSize: Type.Optional(DecimalString),
  perpFillAvgPx: Type.Optional(DecimalString),
  /** Additive, on a SWEEP RFQ: false when the quote may be cut to what a sweep has left. */
  allOrNone: Type.Optional(Type.Boolean()),
});

export const MakerQuote = Type.Object({
  rfqId: Type.String(),
  quoteId: Type.String(),
  version: Type.Integer(),
  instrumentId: InstrumentId,
  side: Side,
  status: QuoteStatus,
  makerPays: QuoteLegOut,
  makerReceives: QuoteLegOut,
  receivedAt: UnixMillis,
  settlementMode: Type.String(),
  acceptableForMs: Type.Optional(Type.Integer()),
  expiryMs: Type.Optional(UnixMillis),
  settlementDeadline: Type.Optional(UnixSeconds),
  deliveryDeadline: Type.Optional(UnixSeconds),
  permitSignature: Type.Optional(Type.String()),
  spender: Type.Optional(Type.String()),
  /** Additive, permit2 once selected: keccak256(utf8(quoteId)), the wrapper's `quoteHash` argument. */
  quoteHash: Type.Optional(Type.String()),
  /** Additive, permit2 once selected: the permit's nonce (uint256 of quoteHash) as a decimal string. */
  permit2Nonce: Type.Optional(Type.String()),
  windowStartsAt: Type.Optional(UnixMillis),
  windowEndsAt: Type.Optional(UnixMillis),
  settledAt: Type.Optional(UnixMillis),
  txHash: Type.Optional(Type.String()),
  xchange: Type.Optional(XchangeBundle),
  /** Perp: 1-indexed place behind the winner while a cascade backup. */
  position: Type.Optional(Type.Integer({ minimum: 1 })),
  perpFilledSize: Type.Optional(DecimalString),
  perpFillAvgPx: Type.Optional(DecimalString),
  /** Additive: the maker's own order's fill as the venue reports it. */
  perpMakerFilledSize: Type.Optional(DecimalString),
  /** Additive, on a SWEEP RFQ: false when the quote may be cut to what a sweep has left. */
  allOrNone: Type.Optional(Type.Boolean()),
  /** Additive, on a SWEEP RFQ: the base a cut quote was selected for (its legs show the cut). */
  selectedQty: Type.Optional(DecimalString),
});

export const OpenRfq = Type.Object({
  id: Type.String(),
  instrumentId: InstrumentId,
  side: Side,
  baseQty: DecimalString,
  autoAccept: Type.Boolean(),
  createdAt: UnixMillis,
  auctionEndsAt: UnixMillis,
  expiresAt: UnixMillis,
  settlementDeadline: UnixSeconds,
  taker: TakerPseudonym,
  /** Additive, SWEEP only: a quote's base leg may be any part of baseQty (see CreateQuoteRequest.allOrNone). */
  fill: Type.Optional(Type.Literal('SWEEP')),
  minFillQty: Type.Optional(DecimalString),
});

export const AcceptRequest = Type.Object(
  {
    /** One quote. Exactly one of quoteId, sweep and quotes. */
    quoteId: Type.Optional(Id),
    expectedVersion: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    /** A perp RFQ: the taker's signed IOC for the quote, or on a SWEEP for the selection (its size at the worst selected price). */
    perpTakerOrder: Type.Optional(Type.Unknown()),
    /** SWEEP RFQ: take the sweep as the service ranks it. */
    sweep: Type.Optional(Type.Literal(true)),
    /** SWEEP RFQ: rank only these quotes, each at the version the taker saw. */
    quotes: Type.Optional(Type.Array(
      Type.Object({ quoteId: Id, expectedVersion: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))) }, { additionalProperties: false }),
      { minItems: 1, maxItems: 64 },
    )),
  },
  { additionalProperties: false },
);
export const AcceptResponse = Type.Object({
  rfqId: Type.String(),
  /** On a sweep, the first selected quote. */
  quoteId: Type.String(),
  status: RfqStatus,
  /** Additive, on a sweep: every selected quote in rank order. */
  quoteIds: Type.Optional(Type.Array(Type.String())),
});

export const CreateQuoteRequest = Type.Object(
  {
    rfqId: Id,
    instrumentId: InstrumentId,
    side: Side,
    makerPays: QuoteLeg,
    makerReceives: QuoteLeg,
    acceptableForMs: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    expiryMs: Type.Optional(Nullable(Type.Integer())),
    xchange: Type.Optional(Nullable(XchangeBundle)),
    // Perp only: the maker's signed venue order and cancel, checked strictly by the service (key order is signed, so no schema coercion here).
    perpMakerOrder: Type.Optional(Type.Unknown()),
    perpMakerCancel: Type.Optional(Type.Unknown()),
    /** SWEEP RFQ only: false lets the quote be cut to what the sweep has left (default true). */
    allOrNone: Type.Optional(Nullable(Type.Boolean())),
  },
  { additionalProperties: false },
);
export const CreateQuoteResponse = Type.Object({ status: QuoteStatus, quoteId: Type.String(), version: Type.Integer() });

export const RfqsPage = Page(Rfq);
export const QuotesPage = Page(Quote);
export const MakerQuotesPage = Page(MakerQuote);
export const OpenRfqsPage = Page(OpenRfq);
export const IdParams = Type.Object({ id: Id });
export const QuoteIdParams = Type.Object({ quoteId: Id });
