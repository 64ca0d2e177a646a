/**
 * The money of a `/v0` order, pure: what it locks and what each fill moves. Notional is size
 * (10^weiDecimals of the base) x price (10^8), so exact; conversions to ledger units round against
 * the user (a buyer pays the ceiling, a seller receives the floor). A buyer's debits are taken as
 * differences of the rounded cumulative notional, so their sum never exceeds the lock.
 */
import { PRICE_DECIMALS } from './venue-grid.ts';

export interface OrderScales {
  baseWeiDecimals: number;
  baseLedgerDecimals: number;
  quoteLedgerDecimals: number;
}

export const PPM = 1_000_000n;

function divUp(a: bigint, b: bigint): bigint {
  return a === 0n ? 0n : (a + b - 1n) / b;
}

/** Notional (10^-(wei+8) quote) in quote ledger units. */
export function notionalToQuote(notional: bigint, scales: OrderScales, rounding: 'up' | 'down'): bigint {
  const scale = BigInt(scales.baseWeiDecimals + PRICE_DECIMALS - scales.quoteLedgerDecimals);
  if (scale >= 0n) {
    const divisor = 10n ** scale;
    return rounding === 'up' ? divUp(notional, divisor) : notional / divisor;
  }
  return notional * 10n ** -scale;
}

/** A base size (10^wei) in base ledger units. */
export function sizeToBase(size: bigint, scales: OrderScales, rounding: 'up' | 'down'): bigint {
  const scale = scales.baseWeiDecimals - scales.baseLedgerDecimals;
  if (scale >= 0) {
    const divisor = 10n ** BigInt(scale);
    return rounding === 'up' ? divUp(size, divisor) : size / divisor;
  }
  return size * 10n ** BigInt(-scale);
}

/** BUY locks amount x price in the quote token; SELL locks the amount in the base token. */
export function orderLock(side: 'buy' | 'sell', amount: bigint, price: bigint, scales: OrderScales): { token: 'base' | 'quote'; amount: bigint } {
  return side === 'buy'
    ? { token: 'quote', amount: notionalToQuote(amount * price, scales, 'up') }
    : { token: 'base', amount: sizeToBase(amount, scales, 'up') };
}

export interface FillMoney {
  /** Paid from the lock, in ledger units of the token given (quote for a buy, base for a sell). */
  paid: bigint;
  /** Received before the service fee, in ledger units of the token received. */
  receivedGross: bigint;
  /** The service fee on the token received (rounded down). */
  fee: bigint;
  /** The new cumulative notional and the new quote total settled (for the order row). */
  filledNotional: bigint;
  quoteSettled: bigint;
}

/**
 * One fill of `size` at `price` on an order whose earlier fills summed to `filledNotional` and
 * settled `quoteSettled` quote units; `feePpm` is the account's rate.
 */
export function fillMoney(
  side: 'buy' | 'sell',
  size: bigint,
  price: bigint,
  before: { filledNotional: bigint; quoteSettled: bigint },
  feePpm: number,
  scales: OrderScales,
): FillMoney {
  const filledNotional = before.filledNotional + size * price;
  if (side === 'buy') {
    const quoteSettled = notionalToQuote(filledNotional, scales, 'up');
    const receivedGross = sizeToBase(size, scales, 'down');
    return { paid: quoteSettled - before.quoteSettled, receivedGross, fee: (receivedGross * BigInt(feePpm)) / PPM, filledNotional, quoteSettled };
  }
  const quoteSettled = notionalToQuote(filledNotional, scales, 'down');
  const receivedGross = quoteSettled - before.quoteSettled;
  return { paid: sizeToBase(size, scales, 'up'), receivedGross, fee: (receivedGross * BigInt(feePpm)) / PPM, filledNotional, quoteSettled };
}

/** The decimal fraction of a ppm rate (700 -> "0.0007"). */
export function ppmToFraction(ppm: number): string {
  const digits = String(ppm).padStart(7, '0');
  const fraction = digits.slice(1).replace(/0+$/, '');
  return fraction.length > 0 ? `${digits.slice(0, 1)}.${fraction}` : digits.slice(0, 1);
}
