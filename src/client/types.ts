/** Wire types of the v1 REST surface, as a client sees them (amounts are decimal strings). */
export type Side = 'BUY' | 'SELL';
export type RfqStatus = 'PENDING' | 'QUOTED' | 'SETTLED' | 'FAILED' | 'CANCELLED';
export type QuoteStatus = 'SUBMITTED' | 'SELECTED' | 'NOT_SELECTED' | 'EXPIRED' | 'SETTLED' | 'FAILED' | 'CANCELLED';

export interface Page<T> { items: T[]; hasMore: boolean; nextCursor?: string | null }
export interface LoginResponse { userId: string; account: string; accessKey: string; secret: string; expiresAt: number; makerId?: string }
export interface ApiKeyView { accessKey: string; createdAt: number; expiresAt: number }
export interface Instrument { instrumentId: string; base: string; quote: string; type: 'SPOT' | 'PERP'; instrumentType: 'SPOT' | 'PERP'; minQuoteNotional?: string; takerFeeTenthBp: number; enabled?: boolean }
export interface Balance { token: string; available: string; locked: string; total: string; rail: 'EVM' | 'VENUE' }
export interface LedgerView { ledgerId: string; token: string; delta: string; source: string; createdAt: number; rail: 'EVM' | 'VENUE'; rfqId?: string }
export interface QuoteLeg { token: string; amount: string }

export interface Rfq {
  id: string; instrumentId: string; side: Side; baseQty: string; status: RfqStatus; autoAccept: boolean;
  createdAt: number; auctionEndsAt: number; expiresAt: number; settlementDeadline: number;
  quoteLimit?: string | null; quotedAt?: number | null; settledAt?: number | null;
  executedPayAmount?: string | null; executedRecvAmount?: string | null; takerFee?: string | null;
  txHash?: string | null; failureCode?: string | null; failureReason?: string | null;
  /** Additive (DESIGN.md 9.3): the quote that executed, on a perp RFQ once selected. */
  selectedQuoteId?: string | null;
  /** Additive, SWEEP only: the fill asked for and the least the selection had to fill. */
  fill?: 'SWEEP'; minFillQty?: string;
  /** Additive, SWEEP only once selected: one per selected quote, in rank order. */
  fills?: SweepFill[];
}
export interface SweepFill { quoteId: string; baseQty: string; quoteQty: string; status: QuoteStatus; txHash?: string }
export interface CreateRfqInput {
  instrumentId: string; side: Side; baseQty: string; quoteLimit?: string; autoAccept?: boolean;
  windowMs?: number; windowSecs?: number; idempotencyKey?: string;
  /** Aliases of disclosed makers (GET /v1/rfq/makers): only they see the RFQ and may quote. */
  makers?: string[];
  /** Aliases of disclosed makers the RFQ must not reach (not together with `makers`). */
  excludeMakers?: string[];
  /** `ALL` (default): one maker fills the whole size; `SWEEP`: several makers may. */
  fill?: 'ALL' | 'SWEEP';
  /** SWEEP only: the least the selection must fill (default `baseQty`). */
  minFillQty?: string;
}
export interface CreateRfqResponse { rfqId: string; status: RfqStatus; auctionEndsAt: number; expiresAt: number }
export interface Quote {
  rfqId: string; quoteId: string; version: number; instrumentId: string; side: Side; status: QuoteStatus;
  makerPays: QuoteLeg; makerReceives: QuoteLeg; takerTotal: string; receivedAt: number;
  acceptableForMs?: number | null; expiryMs?: number | null;
  /** Perp only: the builder attribution the taker's venue order must carry (absent: none). */
  builderFeeTenthBp?: number;
  /** Perp only, on a SETTLED quote: the taker's fill size and average price (USDC per coin, before fees). */
  perpFilledSize?: string | null; perpFillAvgPx?: string | null;
  /** SWEEP RFQ only: false when the quote may be cut. */
  allOrNone?: boolean;
}
export interface MakerQuote {
  rfqId: string; quoteId: string; version: number; instrumentId: string; side: Side; status: QuoteStatus;
  makerPays: QuoteLeg; makerReceives: QuoteLeg; receivedAt: number; settlementMode: 'permit2' | 'promised' | 'xchange' | 'perp';
  acceptableForMs?: number | null; expiryMs?: number | null; settlementDeadline?: number | null; deliveryDeadline?: number | null; permitSignature?: string | null; spender?: string | null; quoteHash?: string; permit2Nonce?: string;
  windowStartsAt?: number | null; windowEndsAt?: number | null; settledAt?: number | null; txHash?: string | null;
  xchange?: XchangeBundle;
  /** Perp: the rank behind the winner while a cascade backup; the fills once SETTLED (DESIGN.md 9.3). */
  position?: number | null; perpFilledSize?: string | null; perpFillAvgPx?: string | null; perpMakerFilledSize?: string | null;
  /** SWEEP RFQ only: whether the quote may be cut, and the base a cut quote was selected for. */
  allOrNone?: boolean; selectedQty?: string;
}
/** The maker's adapter-signed swap (xchange mode); amounts and expiration are integer strings. */
export interface SwapTransfer { token: string; from: string; to: string; amount: string }
export interface XchangeBundle {
  adapter: string;
  settlement: { swapMessage: { quoteId: string; expiration: string; incomingTransfer: SwapTransfer; outgoingTransfer: SwapTransfer }; adapterSignature: string };
}
export interface OpenRfq {
  id: string; instrumentId: string; side: Side; baseQty: string; autoAccept: boolean; createdAt: number; auctionEndsAt: number; expiresAt: number; settlementDeadline: number;
  /** This maker's own pseudonym for the taker (`tkr_` + 16 base32 characters), what a denylist names. */
  taker: string;
  /** SWEEP only: a quote may be for any part of baseQty. */
  fill?: 'SWEEP'; minFillQty?: string;
}
export interface CreateQuoteInput {
  rfqId: string; instrumentId: string; side: Side; makerPays: QuoteLeg; makerReceives: QuoteLeg;
  acceptableForMs?: number; expiryMs?: number; xchange?: XchangeBundle | null;
  /** Perp only: the maker's signed venue order and its cancelByCloid, both `{ action, nonce, signature }`. */
  perpMakerOrder?: unknown; perpMakerCancel?: unknown;
  /** SWEEP RFQ only: false lets the quote be cut (default true). */
  allOrNone?: boolean;
}

/*
 * Not served yet on this branch (on-chain settlement is in progress): typed from the spec's
 * Deposit / Withdrawal resources and DESIGN.md section 5 ("Withdrawals", "Discovery").
 */
export type DepositStatus = 'PENDING' | 'COMPLETED' | 'FAILED';
export type WithdrawalStatus = 'PENDING' | 'APPROVED' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'UNRESOLVED';
export interface Deposit { depositId: string; token: string; amount: string; status: DepositStatus; txHash: string; createdAt: number; updatedAt: number }
export interface Withdrawal {
  withdrawalId: string; token: string; amount: string; status: WithdrawalStatus; toAddress: string;
  txHash?: string | null; failureReason?: string | null; createdAt: number; updatedAt: number;
}
export interface CreateWithdrawalInput { token: string; amount: string; idempotencyKey?: string }
export interface CreateWithdrawalResponse { status: WithdrawalStatus; withdrawalId: string }
export interface NetworkToken { symbol: string; address: string; decimals: number }
export interface Network {
  chainId: number; permit2Address: string; custodyAddress: string; wrapperFactoryAddress?: string;
  tokens: NetworkToken[];
  /** Embedded stack only. */
  rpcUrl?: string;
  /** The perp venue, when the node has one; `url` in the embedded stack only (the simulator). */
  venue?: { network: 'mainnet' | 'testnet'; builderAddress: string | null; url?: string };
}
/** A maker's scorecard (GET /v1/rfq/maker/scorecard). */
export interface Scorecard {
  windowSecs: number;
  rfqsSeen: number;
  rfqsQuoted: number;
  firstQuoteMs: { p50: number | null; p99: number | null };
  wins: number;
  lostByBps: { median: number | null };
  settled: number;
  failures: number;
  fades: number;
  lateRelays: number;
  moves: Array<{ quoteId: string; kind: 'fade' | 'lateRelay'; delayMs: number; marketMoveBps: number | null }>;
}
/** Market-maker protection on one instrument (PUT/GET /v1/rfq/maker/protection). */
export interface ProtectionInput { instrumentId: string; windowMs: number; maxSelectedQuotes?: number | null; maxSelectedNotional?: string | null; frozenMs?: number | null }
export interface Protection {
  instrumentId: string;
  windowMs: number;
  maxSelectedQuotes: number | null;
  maxSelectedNotional: string | null;
  triggeredAt: number | null;
  reason: 'maxSelectedQuotes' | 'maxSelectedNotional' | null;
  frozenMs: number | null;
}
