/**
 * The maker's `perpMakerOrder` and `perpMakerCancel` (DESIGN.md 9.2), checked at quote time with
 * no venue call: the order is signed like the taker's (rules 1-3, 8, 10, 13, 14) but is the
 * maker's side, `s` = `baseQty`, `p` = the quote leg / `s` exactly and on the venue's price grid,
 * ALO, not reduce-only, no builder, `c` required; the cancel is a `cancelByCloid` of that order
 * with a greater nonce. Both are signed by the maker's address or an unexpired API wallet of it.
 */
import type { Address, Hex } from 'viem';
import { formatAmount } from '../money/index.ts';
import { isAuthorisedSigner, type VenueAgent } from './authorised-signer.ts';
import { checkOrderAction, cloidOf } from './order-action.ts';
import { recoverL1Signer } from './recover-signer.ts';
import { checkKeys, isPlainObject, nonceInVenueWindow, readSignedAction } from './signed-action.ts';
import { perpLegs, type CheckedVenueOrder, type PerpOrderContext } from './taker-order.ts';
import {
  VENUE_NONCE_FUTURE_MS,
  VENUE_NONCE_PAST_MS,
  type PerpCheck,
  type PerpOrderDefect,
  type SignedVenueAction,
  type VenueCancelByCloidAction,
  type VenueNetwork,
} from './types.ts';
import { fractionDigits, onPerpPriceGrid, priceFromLeg } from './venue-decimals.ts';

const CLOID = /^0x[0-9a-f]{32}$/;

export interface MakerOrderContext extends Omit<PerpOrderContext, 'builder' | 'now'> {
  now: number;
}

export interface MakerSignerContext {
  network: VenueNetwork;
  /** The maker's venue account (its registered EVM address). */
  account: Address;
  /** The maker's API wallets, from the (cached) `extraAgents`. */
  agents: readonly VenueAgent[];
  now: number;
}

export interface CheckedVenueCancel {
  signed: SignedVenueAction;
  action: VenueCancelByCloidAction;
}

export type MakerOrderCheck = PerpCheck<{ order: CheckedVenueOrder; cloid: Hex }>;
export type MakerCancelCheck = PerpCheck<{ cancel: CheckedVenueCancel }>;
export type MakerQuoteOrdersCheck = PerpCheck<{ order: CheckedVenueOrder; cancel: CheckedVenueCancel; cloid: Hex; orderSigner: Address; cancelSigner: Address }>;

function makerPriceProblem(ctx: MakerOrderContext, s: string, p: string): string | null {
  const { baseLeg, quoteLeg } = perpLegs(ctx.side, ctx.legs);
  const price = priceFromLeg(quoteLeg, ctx.quoteDecimals, baseLeg, ctx.baseDecimals, ctx.szDecimals);
  if (!price.exact) return `the quote leg divided by s ${s} is not a price with at most ${price.priceDecimals} decimals`;
  if (!onPerpPriceGrid(price.p, ctx.szDecimals)) return `p ${price.p} is not on the venue's price grid (5 significant figures, ${price.priceDecimals} decimals)`;
  if (quoteLeg < 10n * 10n ** BigInt(ctx.quoteDecimals)) return "p times s is below the venue's minimum order value of 10 USDC";
  if (p !== price.p) return `p must be ${price.p} (the quote leg divided by s)`;
  return null;
}

export function checkMakerOrder(raw: unknown, ctx: MakerOrderContext, field = 'perpMakerOrder'): MakerOrderCheck {
  const defects: PerpOrderDefect[] = [];
  const signed = readSignedAction(raw, field, defects);
  if (signed !== null && !nonceInVenueWindow(signed.nonce, ctx.now, VENUE_NONCE_PAST_MS, VENUE_NONCE_FUTURE_MS)) {
    defects.push({ field: `${field}.nonce`, reason: 'nonce', message: "nonce is outside the venue's accepted window" });
  }
  const { baseLeg } = perpLegs(ctx.side, ctx.legs);
  const s = formatAmount(baseLeg, ctx.baseDecimals);
  const sizeOffGrid = fractionDigits(s) > ctx.szDecimals;
  const actionRaw = isPlainObject(raw) ? raw.action : undefined;
  let action = null;
  if (isPlainObject(actionRaw)) {
    action = checkOrderAction(
      actionRaw,
      `${field}.action`,
      {
        assetIndex: ctx.assetIndex,
        isBuy: ctx.side === 'SELL',
        size: sizeOffGrid ? `${s} on the ${ctx.szDecimals}-decimal size grid` : s,
        priceProblem: (p) => makerPriceProblem(ctx, s, p),
        tif: 'Alo',
        reduceOnlyAllowed: false,
        cloidRequired: true,
        builder: null,
      },
      defects,
    );
    // The maker's reasons are DESIGN.md 9.2's list: a builder on its order is a shape defect.
    for (const defect of defects) if (defect.reason === 'builder') defect.reason = 'shape';
  }
  if (defects.length > 0 || signed === null || action === null) return { ok: false, errors: defects };
  const cloid = cloidOf(action);
  if (cloid === null) return { ok: false, errors: [{ field: `${field}.action.orders[0].c`, reason: 'cloid', message: 'c is required' }] };
  return { ok: true, order: { signed, action }, cloid };
}

/** The cancel must be a `cancelByCloid` of exactly that order (asset and cloid), with a greater nonce. */
export function checkMakerCancel(raw: unknown, order: { assetIndex: number; cloid: Hex | null; nonce: number | null }, ctx: { now: number }, field = 'perpMakerCancel'): MakerCancelCheck {
  const defects: PerpOrderDefect[] = [];
  const signed = readSignedAction(raw, field, defects);
  for (const defect of defects) if (defect.reason === 'nonce') defect.reason = 'cancel';
  if (signed !== null) {
    if (order.nonce !== null && signed.nonce <= order.nonce) {
      defects.push({ field: `${field}.nonce`, reason: 'cancel', message: "the cancel's nonce must be greater than the order's" });
    } else if (!nonceInVenueWindow(signed.nonce, ctx.now, VENUE_NONCE_PAST_MS, VENUE_NONCE_FUTURE_MS)) {
      defects.push({ field: `${field}.nonce`, reason: 'cancel', message: "nonce is outside the venue's accepted window" });
    }
  }
  const action = isPlainObject(raw) ? raw.action : undefined;
  if (isPlainObject(action)) {
    const before = defects.length;
    checkKeys(action, ['type', 'cancels'], [], `${field}.action`, defects);
    if (action.type !== 'cancelByCloid') defects.push({ field: `${field}.action.type`, reason: 'cancel', message: 'type must be "cancelByCloid"' });
    const cancels = action.cancels;
    if (!Array.isArray(cancels) || cancels.length !== 1 || !isPlainObject(cancels[0])) {
      defects.push({ field: `${field}.action.cancels`, reason: 'cancel', message: 'cancels must hold exactly one { asset, cloid }' });
    } else {
      const entry = cancels[0];
      checkKeys(entry, ['asset', 'cloid'], [], `${field}.action.cancels[0]`, defects);
      if (entry.asset !== order.assetIndex) defects.push({ field: `${field}.action.cancels[0].asset`, reason: 'cancel', message: "asset must be the order's a" });
      if (typeof entry.cloid !== 'string' || !CLOID.test(entry.cloid) || entry.cloid !== order.cloid) {
        defects.push({ field: `${field}.action.cancels[0].cloid`, reason: 'cancel', message: "cloid must be the order's c" });
      }
    }
    // A cancel is valid only when it cancels this order: any shape defect is a cancel defect.
    for (const defect of defects.slice(before)) defect.reason = 'cancel';
  }
  if (defects.length > 0 || signed === null) return { ok: false, errors: defects };
  return { ok: true, cancel: { signed, action: action as unknown as VenueCancelByCloidAction } };
}

async function signerDefect(signed: SignedVenueAction, field: string, ctx: MakerSignerContext): Promise<{ signer: Address | null; defect: PerpOrderDefect | null }> {
  let signer: Address;
  try {
    signer = await recoverL1Signer(signed, ctx.network);
  } catch {
    return { signer: null, defect: { field: `${field}.signature`, reason: 'signer', message: 'the signature does not recover a signer' } };
  }
  if (isAuthorisedSigner(signer, ctx.account, ctx.agents, ctx.now)) return { signer, defect: null };
  return {
    signer,
    // A signature for the other network recovers some unrelated address: name the one checked.
    defect: { field: `${field}.signature`, reason: 'signer', message: `the signer is neither the maker's address nor an unexpired API wallet of it (recovered for the venue network "${ctx.network}", GET /v1/rfq/network venue.network; a signature for another network recovers another address)` },
  };
}

/** Both checks and both signers; one defect entry per problem found. */
export async function checkMakerQuoteOrders(
  rawOrder: unknown,
  rawCancel: unknown,
  ctx: MakerOrderContext & MakerSignerContext,
): Promise<MakerQuoteOrdersCheck> {
  const order = checkMakerOrder(rawOrder, ctx);
  const rawNonce = isPlainObject(rawOrder) && typeof rawOrder.nonce === 'number' ? rawOrder.nonce : null;
  const cloid = order.ok ? order.cloid : null;
  const cancel = checkMakerCancel(rawCancel, { assetIndex: ctx.assetIndex, cloid: cloid ?? cloidFromRaw(rawOrder), nonce: rawNonce }, ctx);
  const defects = [...(order.ok ? [] : order.errors), ...(cancel.ok ? [] : cancel.errors)];
  let orderSigner: Address | null = null;
  let cancelSigner: Address | null = null;
  if (order.ok) {
    const result = await signerDefect(order.order.signed, 'perpMakerOrder', ctx);
    orderSigner = result.signer;
    if (result.defect) defects.push(result.defect);
  }
  if (cancel.ok) {
    const result = await signerDefect(cancel.cancel.signed, 'perpMakerCancel', ctx);
    cancelSigner = result.signer;
    if (result.defect) defects.push(result.defect);
  }
  if (defects.length > 0 || !order.ok || !cancel.ok || orderSigner === null || cancelSigner === null) return { ok: false, errors: defects };
  return { ok: true, order: order.order, cancel: cancel.cancel, cloid: order.cloid, orderSigner, cancelSigner };
}

/** The order's `c` as sent, so a malformed order still lets the cancel be compared with it. */
function cloidFromRaw(rawOrder: unknown): Hex | null {
  if (!isPlainObject(rawOrder) || !isPlainObject(rawOrder.action)) return null;
  const orders = rawOrder.action.orders;
  if (!Array.isArray(orders) || !isPlainObject(orders[0])) return null;
  const c = orders[0].c;
  return typeof c === 'string' ? (c as Hex) : null;
}
