/**
 * A maker's perp quote (DESIGN.md 9.2): `perpMakerOrder` and `perpMakerCancel`, both required on
 * a perp and refused on a spot RFQ, checked at quote time without a venue call beyond the cached
 * `meta` and API wallets, and refused with 400 PERP_ORDER_INVALID, one `details.errors[]` entry per
 * defect. The checked pair is written with the quote in one call (`rfq_write_perp_quote`), which
 * also claims both (signer, nonce) pairs.
 */
import type { Address } from 'viem';
import { ServiceError, invalidField } from '../../domain/errors.ts';
import { checkMakerQuoteOrders, type PerpOrderDefect } from '../../domain/perp/index.ts';
import type { Instrument, QuoteLegs, Side } from '../../domain/rfq/index.ts';
import { outboxCommitted } from '../../store/outbox.ts';
import { writePerpQuoteRow } from '../../store/quote-write-functions.ts';
import type { Db } from '../../store/transaction.ts';
import type { ServiceDeps } from '../deps.ts';
import { quoteWriteItem, type QuoteWrite, type QuoteWriteOutcome } from '../rfq/write-quote.ts';
import { fromVenue, perpCoin, requireVenue } from './venue-market.ts';

export interface PerpQuoteFields {
  perpMakerOrder?: unknown;
  perpMakerCancel?: unknown;
}

/** What `rfq_write_perp_quote` stores with the quote. Orders are JSON text as received (key order is signed). */
export interface PerpQuoteWrite {
  assetIndex: number;
  cloid: string;
  order: string;
  orderNonce: number;
  orderSigner: string;
  cancel: string;
  cancelNonce: number;
  cancelSigner: string;
}

export function perpOrderInvalid(errors: PerpOrderDefect[]): ServiceError {
  const first = errors[0];
  return new ServiceError('PERP_ORDER_INVALID', first ? `${first.field}: ${first.message}` : 'the perp order is invalid', { errors });
}

/** Refuses the perp fields on a spot RFQ (INVALID_REQUEST). */
export function assertNoPerpFields(input: PerpQuoteFields): void {
  for (const field of ['perpMakerOrder', 'perpMakerCancel'] as const) {
    if (input[field] !== undefined && input[field] !== null) throw invalidField(field, 'notAllowed', `${field} is only allowed on a perp RFQ`);
  }
}

export async function checkPerpQuote(
  deps: ServiceDeps,
  quote: { side: Side; instrument: Instrument; legs: QuoteLegs; makerAddress: string; now: number; input: PerpQuoteFields },
): Promise<PerpQuoteWrite> {
  const { input } = quote;
  for (const field of ['perpMakerOrder', 'perpMakerCancel'] as const) {
    if (input[field] === undefined || input[field] === null) throw invalidField(field, 'required', `${field} is required on a perp RFQ`);
  }
  const venue = requireVenue(deps);
  const coin = await perpCoin(deps, quote.instrument);
  const account = quote.makerAddress as Address;
  const context = {
    side: quote.side,
    legs: { makerPays: quote.legs.makerPays.amount, makerReceives: quote.legs.makerReceives.amount },
    baseDecimals: quote.instrument.baseDecimals,
    quoteDecimals: quote.instrument.quoteDecimals,
    assetIndex: coin.assetIndex,
    szDecimals: coin.szDecimals,
    now: quote.now,
    network: venue.network,
    account,
  };
  // A maker signing with its own key needs no venue read (`extraAgents` weighs 20 of the venue's
  // per-minute budget); only a signer that is not the maker is looked up among its API wallets.
  let checked = await checkMakerQuoteOrders(input.perpMakerOrder, input.perpMakerCancel, { ...context, agents: [] });
  if (!checked.ok && checked.errors.some((e) => e.reason === 'signer')) {
    const agents = await fromVenue('the maker\u2019s API wallets', () => venue.extraAgents(account));
    checked = await checkMakerQuoteOrders(input.perpMakerOrder, input.perpMakerCancel, { ...context, agents });
  }
  if (!checked.ok) throw perpOrderInvalid(checked.errors);
  return {
    assetIndex: coin.assetIndex,
    cloid: checked.cloid,
    // The body was parsed from JSON, so re-serialising gives the same keys in the same order.
    order: JSON.stringify(checked.order.signed),
    orderNonce: checked.order.signed.nonce,
    orderSigner: checked.orderSigner.toLowerCase(),
    cancel: JSON.stringify(checked.cancel.signed),
    cancelNonce: checked.cancel.signed.nonce,
    cancelSigner: checked.cancelSigner.toLowerCase(),
  };
}

export interface PerpQuoteWriteOutcome extends Omit<QuoteWriteOutcome, 'refusal'> {
  refusal: QuoteWriteOutcome['refusal'] | 'venueNonceClaimed';
  /** `signer:nonce` of the pair already claimed, with `venueNonceClaimed`. */
  conflict: string | null;
}

/**
 * Writes one perp quote, its orders and its nonce claims in one transaction (not group-committed:
 * the nonce claims must roll the quote write back, which a shared batch cannot do per item).
 */
export async function writePerpQuote(db: Db, write: QuoteWrite, perp: PerpQuoteWrite): Promise<PerpQuoteWriteOutcome> {
  const item = JSON.stringify(quoteWriteItem(write, 0));
  const fields = JSON.stringify({
    asset_index: perp.assetIndex,
    cloid: perp.cloid,
    order: perp.order,
    order_nonce: String(perp.orderNonce),
    order_signer: perp.orderSigner,
    cancel: perp.cancel,
    cancel_nonce: String(perp.cancelNonce),
    cancel_signer: perp.cancelSigner,
  });
  const row = await writePerpQuoteRow(db, item, fields);
  if (!row) throw new Error('rfq_write_perp_quote returned no row');
  if (row.out_quote_id !== null) outboxCommitted(db);
  return {
    reused: row.out_reused,
    rfqOpen: row.out_rfq_open,
    makerAllowed: row.out_maker_allowed,
    quoteId: row.out_quote_id,
    version: row.out_version === null ? null : Number(row.out_version),
    refusal: row.out_refusal as PerpQuoteWriteOutcome['refusal'],
    conflict: row.out_conflict,
  };
}

/** PERP_ORDER_INVALID for a (signer, nonce) already claimed, naming the order or the cancel. */
export function nonceClaimedError(perp: PerpQuoteWrite, conflict: string | null): ServiceError {
  const field = conflict === `${perp.cancelSigner}:${perp.cancelNonce}` ? 'perpMakerCancel' : 'perpMakerOrder';
  return perpOrderInvalid([{ field: `${field}.nonce`, reason: 'nonce', message: 'this signer already used this nonce; sign with a fresh nonce' }]);
}
