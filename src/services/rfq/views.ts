/**
 * Wire views of RFQs and quotes (spec: Rfq, Quote, MakerQuote, OpenRfq). Amounts are formatted
 * here with the instrument's token decimals; absent optional fields are omitted, not null.
 * The taker's Quote names no maker and carries no permit; the OpenRfq never shows quoteLimit.
 */
import { formatAmount } from '../../domain/money/index.ts';
import { makerBaseQty, type Instrument } from '../../domain/rfq/index.ts';
import type { QuoteRow, RfqRow } from './rows.ts';
import { rfqTerms } from './rows.ts';

function decimalsOf(instrument: Instrument, token: string): number {
  return token === instrument.base ? instrument.baseDecimals : instrument.quoteDecimals;
}

function present<T>(key: string, value: T | null | undefined): Record<string, T> {
  return value === null || value === undefined ? {} : { [key]: value };
}

/** The pay token of the taker: the quote token on a BUY, the base on a SELL. */
function payDecimals(row: Pick<RfqRow, 'side'>, instrument: Instrument): number {
  return row.side === 'BUY' ? instrument.quoteDecimals : instrument.baseDecimals;
}

export function rfqView(row: RfqRow, instrument: Instrument) {
  const recvDecimals = row.side === 'BUY' ? instrument.baseDecimals : instrument.quoteDecimals;
  return {
    id: row.id,
    instrumentId: row.instrument_id,
    side: row.side,
    baseQty: formatAmount(row.base_qty, instrument.baseDecimals),
    status: row.status,
    autoAccept: row.auto_accept,
    createdAt: row.created_at,
    auctionEndsAt: row.auction_ends_at,
    expiresAt: row.auction_ends_at,
    settlementDeadline: row.settlement_deadline_secs,
    ...present('quoteLimit', row.quote_limit === null ? null : formatAmount(row.quote_limit, instrument.quoteDecimals)),
    ...present('quotedAt', row.quoted_at),
    ...present('settledAt', row.settled_at),
    ...present('executedPayAmount', row.executed_pay_amount === null ? null : formatAmount(row.executed_pay_amount, payDecimals(row, instrument))),
    ...present('executedRecvAmount', row.executed_recv_amount === null ? null : formatAmount(row.executed_recv_amount, recvDecimals)),
    // A sweep's fee is in the quote token on both sides (sweep-selection.ts).
    ...present('takerFee', row.taker_fee === null ? null : formatAmount(row.taker_fee, row.fill === 'SWEEP' ? instrument.quoteDecimals : payDecimals(row, instrument))),
    ...present('txHash', row.tx_hash),
    ...present('failureCode', row.failure_code),
    ...present('failureReason', row.failure_reason),
    // Additive (DESIGN.md 9.3): on a perp, the quote that executed, after any cascade.
    ...present('selectedQuoteId', instrument.type === 'PERP' ? row.selected_quote_id : null),
    ...sweepFields(row, instrument),
    ...sweepFills(row, instrument),
  };
}

/** Additive: a SWEEP RFQ echoes its fill and `minFillQty`; an ALL RFQ shows neither. */
function sweepFields(row: Pick<RfqRow, 'fill' | 'min_fill_qty'>, instrument: Instrument): { fill?: 'SWEEP'; minFillQty?: string } {
  if (row.fill !== 'SWEEP' || row.min_fill_qty === null) return {};
  return { fill: 'SWEEP', minFillQty: formatAmount(row.min_fill_qty, instrument.baseDecimals) };
}

/** Additive, on a SWEEP RFQ once selected: its legs in rank order, none naming a maker. */
function sweepFills(row: Pick<RfqRow, 'sweep_fills'>, instrument: Instrument) {
  if (row.sweep_fills === null) return {};
  return {
    fills: row.sweep_fills.map((f) => ({
      quoteId: f.quoteId,
      baseQty: formatAmount(BigInt(f.baseQty), instrument.baseDecimals),
      quoteQty: formatAmount(BigInt(f.quoteQty), instrument.quoteDecimals),
      status: f.status,
      ...present('txHash', f.txHash),
    })),
  };
}

/** Additive, on a SWEEP RFQ: whether the quote may be cut (only at the version its maker let it be). */
function allOrNone(row: Pick<QuoteRow, 'version' | 'divisible_version'>, rfq: Pick<RfqRow, 'fill'>): { allOrNone?: boolean } {
  return rfq.fill === 'SWEEP' ? { allOrNone: row.divisible_version !== row.version } : {};
}

function legs(row: QuoteRow, instrument: Instrument) {
  return {
    makerPays: { token: row.maker_pays_token, amount: formatAmount(row.maker_pays_amount, decimalsOf(instrument, row.maker_pays_token)) },
    makerReceives: { token: row.maker_receives_token, amount: formatAmount(row.maker_receives_amount, decimalsOf(instrument, row.maker_receives_token)) },
  };
}

/**
 * The builder attribution a perp quote's taker order must carry: the instrument's
 * `takerFeeTenthBp` as at RFQ submission; absent on a spot quote and when that rate is 0.
 */
export function builderFeeTenthBp(rfq: Pick<RfqRow, 'taker_fee_tenth_bp'>, instrument: Pick<Instrument, 'type'>): number | null {
  return instrument.type === 'PERP' && rfq.taker_fee_tenth_bp > 0 ? rfq.taker_fee_tenth_bp : null;
}

/** The taker's view of a competing quote: anonymous, no settlement authorisation. */
export function quoteView(row: QuoteRow, rfq: Pick<RfqRow, 'instrument_id' | 'side' | 'taker_fee_tenth_bp' | 'fill'>, instrument: Instrument) {
  return {
    rfqId: row.rfq_id,
    quoteId: row.id,
    version: row.version,
    instrumentId: rfq.instrument_id,
    side: rfq.side,
    status: row.status,
    ...legs(row, instrument),
    takerTotal: formatAmount(row.taker_total, payDecimals(rfq, instrument)),
    receivedAt: row.received_at,
    ...present('acceptableForMs', row.acceptable_for_ms),
    ...present('expiryMs', row.acceptable_for_ms === null ? null : row.received_at + row.acceptable_for_ms),
    ...present('builderFeeTenthBp', builderFeeTenthBp(rfq, instrument)),
    ...present('perpFilledSize', row.perp_filled_size),
    ...present('perpFillAvgPx', row.perp_fill_avg_px),
    ...allOrNone(row, rfq),
  };
}

/** The maker's view of its own quote, with the settlement fields once it wins. */
export function makerQuoteView(row: QuoteRow, rfq: Pick<RfqRow, 'instrument_id' | 'side' | 'fill'>, instrument: Instrument) {
  return {
    rfqId: row.rfq_id,
    quoteId: row.id,
    version: row.version,
    instrumentId: rfq.instrument_id,
    side: rfq.side,
    status: row.status,
    ...legs(row, instrument),
    receivedAt: row.received_at,
    settlementMode: row.settlement_mode,
    ...present('acceptableForMs', row.acceptable_for_ms),
    ...present('expiryMs', row.acceptable_for_ms === null ? null : row.received_at + row.acceptable_for_ms),
    ...present('settlementDeadline', row.settlement_deadline_secs),
    ...present('deliveryDeadline', row.delivery_deadline_secs),
    ...present('permitSignature', row.permit_signature),
    ...present('spender', row.spender),
    ...permit2Relay(row),
    ...present('windowStartsAt', row.window_starts_at),
    ...present('windowEndsAt', row.window_ends_at),
    ...present('settledAt', row.settled_at),
    ...present('txHash', row.tx_hash),
    ...present('xchange', row.xchange),
    ...present('position', row.position),
    ...present('perpFilledSize', row.perp_filled_size),
    ...present('perpFillAvgPx', row.perp_fill_avg_px),
    ...present('perpMakerFilledSize', row.perp_maker_filled_size),
    ...allOrNone(row, rfq),
    ...present('selectedQty', row.selected_qty === null ? null : formatAmount(row.selected_qty, instrument.baseDecimals)),
  };
}

/**
 * Additive (DESIGN 5): what a permit2 winner passes to its wrapper's `settle`, so a maker in any
 * language relays without deriving anything: `quoteHash = keccak256(utf8(quoteId))` (stored at
 * selection) and the permit's `nonce`, the same 32 bytes as a uint256 in decimal.
 */
function permit2Relay(row: Pick<QuoteRow, 'settlement_mode' | 'quote_hash'>): { quoteHash?: string; permit2Nonce?: string } {
  if (row.settlement_mode !== 'permit2' || !row.quote_hash) return {};
  return { quoteHash: row.quote_hash, permit2Nonce: BigInt(row.quote_hash).toString() };
}

/** Whom a broadcast `rfq` frame reaches and whose it is; kept on the outbox row, never sent (src/ws/open-rfq-frame.ts). */
export interface OpenRfqRoute {
  taker: string;
  only: string[] | null;
  except: string[];
}

export function openRfqRoute(row: RfqRow): OpenRfqRoute {
  return { taker: row.account_id, only: row.audience_only, except: row.audience_except };
}

/**
 * What every maker sees of an open RFQ: no quoteLimit, no taker; on a SELL the fee-carved baseQty.
 * Each maker's copy adds `taker`, its own pseudonym for the taker (the listing, and each session
 * for the `rfq` frame: src/ws/open-rfq-frame.ts), never an address or account id.
 */
export function openRfqView(row: RfqRow, instrument: Instrument) {
  return {
    id: row.id,
    instrumentId: row.instrument_id,
    side: row.side,
    // A SWEEP SELL carves no base out for the fee (its fee is in the quote token): makers see the full size.
    baseQty: formatAmount(row.fill === 'SWEEP' ? row.base_qty : makerBaseQty(rfqTerms(row, instrument)), instrument.baseDecimals),
    autoAccept: row.auto_accept,
    createdAt: row.created_at,
    auctionEndsAt: row.auction_ends_at,
    expiresAt: row.auction_ends_at,
    settlementDeadline: row.settlement_deadline_secs,
    ...sweepFields(row, instrument),
  };
}
