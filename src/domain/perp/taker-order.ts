/**
 * The taker's `perpTakerOrder` against the quote it accepts (spec, "Perp taker order shape and
 * signing rules" 1-12). Pure and synchronous: the signer (rules 13-14) is recovered separately by
 * `recoverL1Signer` and checked with `isAuthorisedSigner`; the (signer, nonce) claim is the
 * service's.
 */
import { formatAmount } from '../money/index.ts';
import type { Side } from '../rfq/types.ts';
import { checkOrderAction, cloidOf } from './order-action.ts';
import { nonceInVenueWindow, readSignedAction } from './signed-action.ts';
import { fractionDigits, onPerpPriceGrid, priceFromLeg } from './venue-decimals.ts';
import {
  VENUE_NONCE_FUTURE_MS,
  VENUE_NONCE_PAST_MS,
  type BuilderTerms,
  type PerpCheck,
  type PerpOrderDefect,
  type SignedVenueAction,
  type VenueOrderAction,
} from './types.ts';
import type { Hex } from 'viem';

/** A perp quote's legs in smallest units: base in `baseDecimals`, USDC in `quoteDecimals`. */
export interface PerpQuoteLegs {
  makerPays: bigint;
  makerReceives: bigint;
}

export interface PerpOrderContext {
  /** The RFQ's side (the taker's). */
  side: Side;
  legs: PerpQuoteLegs;
  baseDecimals: number;
  quoteDecimals: number;
  /** The coin's index in the venue's `meta.universe` (from a fresh meta on accept). */
  assetIndex: number;
  szDecimals: number;
  /** The service's builder and the quote's `builderFeeTenthBp`; null when the quote carries none. */
  builder: BuilderTerms | null;
  /** When given, the nonce must be inside the venue's window around this instant. */
  now?: number;
  /** The `s` and `p` the order must carry when they are not the quote's own (a perp sweep: perpSweepTakerTerms). */
  expected?: { s: string; p: string | null; problem: string | null };
}

export interface CheckedVenueOrder {
  /** The envelope exactly as sent (forward this, never a rebuilt copy). */
  signed: SignedVenueAction;
  action: VenueOrderAction;
}

export type TakerOrderCheck = PerpCheck<{ order: CheckedVenueOrder; cloid: Hex | null }>;

/** The base leg and the quote leg of a perp quote (rules 6 and 7). */
export function perpLegs(side: Side, legs: PerpQuoteLegs): { baseLeg: bigint; quoteLeg: bigint } {
  return side === 'BUY' ? { baseLeg: legs.makerPays, quoteLeg: legs.makerReceives } : { baseLeg: legs.makerReceives, quoteLeg: legs.makerPays };
}

/**
 * The `s` and `p` a taker's order must carry for this quote (rules 6-7). `p` is null, with a
 * refusal message, when the quote's legs cannot give a valid order.
 */
export function expectedTakerSizeAndPrice(ctx: PerpOrderContext): { s: string; p: string | null; problem: string | null } {
  const { baseLeg, quoteLeg } = perpLegs(ctx.side, ctx.legs);
  if (baseLeg <= 0n) return { s: '0', p: null, problem: 'the quote has no base size' };
  const s = formatAmount(baseLeg, ctx.baseDecimals);
  if (fractionDigits(s) > ctx.szDecimals) return { s, p: null, problem: `the base leg ${s} is finer than the coin's size grid (${ctx.szDecimals} decimals)` };
  const price = priceFromLeg(quoteLeg, ctx.quoteDecimals, baseLeg, ctx.baseDecimals, ctx.szDecimals);
  if (price.pUnits === 0n) return { s, p: null, problem: 'the quote leg divided by s truncates to a zero price' };
  if (!price.withinMicro) return { s, p: null, problem: `p ${price.p} times s ${s} is not within one micro-unit of the quote leg` };
  if (!onPerpPriceGrid(price.p, ctx.szDecimals)) return { s, p: null, problem: `p ${price.p} is not on the venue's price grid` };
  return { s, p: price.p, problem: null };
}

export function checkTakerOrder(raw: unknown, ctx: PerpOrderContext, field = 'perpTakerOrder'): TakerOrderCheck {
  const defects: PerpOrderDefect[] = [];
  const signed = readSignedAction(raw, field, defects);
  if (signed !== null && ctx.now !== undefined && !nonceInVenueWindow(signed.nonce, ctx.now, VENUE_NONCE_PAST_MS, VENUE_NONCE_FUTURE_MS)) {
    defects.push({ field: `${field}.nonce`, reason: 'nonce', message: "nonce is outside the venue's accepted window" });
  }
  const expected = ctx.expected ?? expectedTakerSizeAndPrice(ctx);
  const raws = raw as { action?: unknown } | null;
  const actionRaw = raws !== null && typeof raws === 'object' ? raws.action : undefined;
  let action: VenueOrderAction | null = null;
  if (actionRaw !== null && typeof actionRaw === 'object' && !Array.isArray(actionRaw)) {
    action = checkOrderAction(
      actionRaw as Record<string, unknown>,
      `${field}.action`,
      {
        assetIndex: ctx.assetIndex,
        isBuy: ctx.side === 'BUY',
        size: expected.s,
        priceProblem: (p) => expected.problem ?? (p === expected.p ? null : `p must be ${expected.p} (${ctx.expected ? 'the worst selected maker price' : 'the quote leg divided by s, truncated'})`),
        tif: 'Ioc',
        reduceOnlyAllowed: true,
        cloidRequired: false,
        builder: ctx.builder,
      },
      defects,
    );
  }
  if (defects.length > 0 || signed === null || action === null) return { ok: false, errors: defects };
  return { ok: true, order: { signed, action }, cloid: cloidOf(action) };
}
