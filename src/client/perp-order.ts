/**
 * Perp orders on the client side (spec, "Perp taker order shape and signing rules" 1-14; DESIGN.md
 * 9.2): the taker's IOC for a quote it accepts, the maker's ALO and its `cancelByCloid` for a
 * quote it sends, and the venue reads both need (the coin's index and grids from `meta`, the book,
 * the builder-fee approval). Signing is the venue SDK's own (`signL1Action`): the msgpack, the
 * action hash and the EIP-712 `Agent` struct are never rebuilt here. `s` and `p` come from the
 * same domain functions the service checks them with, so what the client signs is what it checks.
 */
import { randomBytes } from 'node:crypto';
import { ExchangeClient, HttpTransport, InfoClient } from '@nktkas/hyperliquid';
import { signL1Action } from '@nktkas/hyperliquid/signing';
import type { Address, Hex, LocalAccount } from 'viem';
import { formatAmount, parseAmount } from '../domain/money/index.ts';
import { expectedTakerSizeAndPrice } from '../domain/perp/taker-order.ts';
import { fractionDigits, perpPriceDecimals } from '../domain/perp/venue-decimals.ts';
import type { Quote, Side } from './types.ts';

export type VenueNetwork = 'mainnet' | 'testnet';

/** `{ action, nonce, signature }`, as `perpTakerOrder`, `perpMakerOrder` and `perpMakerCancel` carry it. */
export interface SignedVenueOrder {
  action: Record<string, unknown>;
  nonce: number;
  signature: { r: string; s: string; v: number };
}

/** USDC's decimals at the venue's perp margin and in the service's quote legs. */
const USDC_DECIMALS = 6;
/** The venue's minimum order value, USDC. */
export const VENUE_MIN_ORDER_USDC = 10_000_000n;

/**
 * Nonces (unix ms, rule 12) that never repeat within this process, even when two orders are
 * signed in the same millisecond: one source per signing key.
 */
export class VenueNonces {
  #last = 0;
  next(): number {
    this.#last = Math.max(Date.now(), this.#last + 1);
    return this.#last;
  }
}

/** A fresh client order id: 16 random bytes, lowercase `0x` hex (rule 10). */
export function newCloid(): Hex {
  return `0x${randomBytes(16).toString('hex')}`;
}

export async function signVenueAction(wallet: LocalAccount, action: Record<string, unknown>, nonce: number, network: VenueNetwork): Promise<SignedVenueOrder> {
  const signature = await signL1Action({ wallet, action, nonce, isTestnet: network === 'testnet' });
  return { action, nonce, signature };
}

/** A coin of the venue's main perp dex: its index in the unfiltered `meta.universe` (rule 4) and size grid. */
export interface PerpAsset {
  coin: string;
  index: number;
  szDecimals: number;
}

/** The venue's touch and mid of a coin, USDC micro-units per whole coin. */
export interface VenueTouch {
  bestBid: bigint | null;
  bestAsk: bigint | null;
}

/** The venue as a trading client needs it: unsigned reads, and the user-signed builder-fee approval. */
export class PerpVenueClient {
  readonly url: string;
  readonly network: VenueNetwork;
  readonly #transport: HttpTransport;
  readonly #info: InfoClient;

  constructor(url: string, network: VenueNetwork, timeoutMs = 10_000) {
    this.url = url;
    this.network = network;
    this.#transport = new HttpTransport({ apiUrl: url, isTestnet: network === 'testnet', timeout: timeoutMs });
    this.#info = new InfoClient({ transport: this.#transport });
  }

  /** Read on every use: the index is the coin's position in the array as the venue lists it now. */
  async asset(coin: string): Promise<PerpAsset> {
    const meta = await this.#info.meta();
    const index = meta.universe.findIndex((u) => u.name === coin);
    if (index < 0) throw new Error(`the venue lists no perp ${coin}`);
    return { coin, index, szDecimals: meta.universe[index]!.szDecimals };
  }

  async touch(coin: string): Promise<VenueTouch> {
    const book = await this.#info.l2Book({ coin });
    const price = (level: { px: string } | undefined) => (level ? parseAmount(level.px, USDC_DECIMALS, { field: 'px' }) : null);
    return { bestBid: price(book?.levels[0][0]), bestAsk: price(book?.levels[1][0]) };
  }

  /** The user's approved maximum builder fee for `builder`, tenths of a basis point. */
  async approvedBuilderFee(user: Address, builder: Address): Promise<number> {
    return this.#info.maxBuilderFee({ user, builder });
  }

  /** Approves `tenthBp` for `builder`; signed by the main wallet (an API wallet cannot approve). */
  async approveBuilderFee(wallet: LocalAccount, builder: Address, tenthBp: number): Promise<void> {
    const exchange = new ExchangeClient({ transport: this.#transport, wallet });
    await exchange.approveBuilderFee({ maxFeeRate: builderFeePercent(tenthBp), builder });
  }
}

/** A rate in tenths of a basis point as the venue's percentage string: `f/1000` percent. */
export function builderFeePercent(tenthBp: number): `${string}%` {
  return `${formatAmount(BigInt(tenthBp), 3)}%`;
}

/** The coin of a perp instrument: the first part of `<COIN>-USDC-PERP`. */
export function perpCoin(instrumentId: string): string {
  return instrumentId.split('-')[0]!;
}

export function isPerpInstrument(instrumentId: string): boolean {
  return instrumentId.endsWith('-PERP');
}

export interface TakerOrderInput {
  /** The RFQ's side. */
  side: Side;
  quote: Pick<Quote, 'makerPays' | 'makerReceives' | 'builderFeeTenthBp'>;
  asset: PerpAsset;
  /** The service's builder address (`GET /v1/rfq/network` `venue.builderAddress`). */
  builderAddress: string | null;
  reduceOnly?: boolean;
  cloid?: Hex;
}

/** The unsigned taker IOC for a quote (rules 1-11), keys in the signed order. */
export function takerOrderAction(input: TakerOrderInput): Record<string, unknown> {
  const { side, quote, asset } = input;
  const baseLeg = side === 'BUY' ? quote.makerPays.amount : quote.makerReceives.amount;
  const quoteLeg = side === 'BUY' ? quote.makerReceives.amount : quote.makerPays.amount;
  const baseDecimals = Math.max(asset.szDecimals, fractionDigits(baseLeg));
  const quoteDecimals = Math.max(USDC_DECIMALS, fractionDigits(quoteLeg));
  const legs = side === 'BUY'
    ? { makerPays: parseAmount(baseLeg, baseDecimals, { field: 'makerPays' }), makerReceives: parseAmount(quoteLeg, quoteDecimals, { field: 'makerReceives' }) }
    : { makerPays: parseAmount(quoteLeg, quoteDecimals, { field: 'makerPays' }), makerReceives: parseAmount(baseLeg, baseDecimals, { field: 'makerReceives' }) };
  const expected = expectedTakerSizeAndPrice({ side, legs, baseDecimals, quoteDecimals, assetIndex: asset.index, szDecimals: asset.szDecimals, builder: null });
  if (expected.p === null) throw new Error(`cannot build an order for this quote: ${expected.problem}`);
  return iocAction({ side, asset, s: expected.s, p: expected.p, builderFeeTenthBp: quote.builderFeeTenthBp, builderAddress: input.builderAddress, reduceOnly: input.reduceOnly, cloid: input.cloid });
}

export interface TakerOrderTermsInput {
  /** The RFQ's side. */
  side: Side;
  asset: PerpAsset;
  /** The order's size and limit price as the venue reads them (decimal strings, already on its grids). */
  s: string;
  p: string;
  /** The rate the order's builder key carries; absent or null: no builder key. */
  builderFeeTenthBp?: number | null;
  builderAddress: string | null;
  reduceOnly?: boolean;
  cloid?: Hex;
}

/**
 * The one place a taker IOC action is laid out, for a single quote and for a sweep alike, so the
 * key order, the lowercase builder and the cloid rule are the same whatever chose `s` and `p`.
 */
function iocAction(input: TakerOrderTermsInput): Record<string, unknown> {
  const fee = input.builderFeeTenthBp;
  if (fee != null && !input.builderAddress) throw new Error('the quote carries builderFeeTenthBp but no builder address is known (GET /v1/rfq/network venue.builderAddress)');
  return {
    type: 'order',
    orders: [{ a: input.asset.index, b: input.side === 'BUY', p: input.p, s: input.s, r: input.reduceOnly ?? false, t: { limit: { tif: 'Ioc' } }, c: input.cloid ?? newCloid() }],
    grouping: 'na',
    // Rule 11: no key at all without a rate (not null, not zero).
    ...(fee != null ? { builder: { b: input.builderAddress!.toLowerCase(), f: fee } } : {}),
  };
}

/** The taker's signed `perpTakerOrder`, nonce minted just before signing (rule 12). */
export async function signTakerOrder(wallet: LocalAccount, input: TakerOrderInput, network: VenueNetwork, nonces: VenueNonces): Promise<SignedVenueOrder> {
  const action = takerOrderAction(input);
  return signVenueAction(wallet, action, nonces.next(), network);
}

/**
 * A signed taker IOC for `s` and `p` given directly: a sweep's order, whose size and price come
 * from its whole selection (`perpSweepTakerTerms`) rather than from one quote's legs.
 */
export async function signTakerOrderTerms(wallet: LocalAccount, input: TakerOrderTermsInput, network: VenueNetwork, nonces: VenueNonces): Promise<SignedVenueOrder> {
  return signVenueAction(wallet, iocAction(input), nonces.next(), network);
}

/**
 * The tick of the venue's perp price grid at `price` (USDC micro-units per coin): at most 5
 * significant figures and `6 - szDecimals` decimals; an integer price is always valid.
 */
export function perpPriceTick(price: bigint, szDecimals: number): bigint {
  const integerDigits = price >= 1_000_000n ? (price / 1_000_000n).toString().length : 0;
  const decimals = Math.max(0, Math.min(perpPriceDecimals(szDecimals), 5 - integerDigits));
  return 10n ** BigInt(USDC_DECIMALS - decimals);
}

/** `price` moved onto the grid: down (`'down'`) or up. */
export function onPerpGrid(price: bigint, szDecimals: number, direction: 'down' | 'up'): bigint {
  const tick = perpPriceTick(price, szDecimals);
  const down = (price / tick) * tick;
  return direction === 'down' || down === price ? down : down + tick;
}

export interface MakerOrdersInput {
  /** The RFQ's side (the taker's); the maker's order is the opposite side. */
  side: Side;
  asset: PerpAsset;
  /** The RFQ's `baseQty`, the maker's `s`. */
  size: string;
  /** The maker's price per coin, USDC micro-units, on the grid (see `onPerpGrid`). */
  price: bigint;
}

/** The quote legs a maker price gives: the USDC leg is `p * s` exactly (DESIGN.md 9.2). */
export function perpMakerLegs(input: MakerOrdersInput): { makerPays: { token: string; amount: string }; makerReceives: { token: string; amount: string }; notional: bigint } {
  const sizeDecimals = Math.max(input.asset.szDecimals, fractionDigits(input.size));
  const sizeUnits = parseAmount(input.size, sizeDecimals, { field: 'size', positive: true });
  // price (micro-USDC per coin) * size (10^-sizeDecimals coins): exact in micro-USDC when the price is on the grid.
  const notional = (input.price * sizeUnits) / 10n ** BigInt(sizeDecimals);
  const base = { token: input.asset.coin, amount: input.size };
  const usdc = { token: 'USDC', amount: formatAmount(notional, USDC_DECIMALS) };
  return input.side === 'BUY' ? { makerPays: base, makerReceives: usdc, notional } : { makerPays: usdc, makerReceives: base, notional };
}

/** The maker's ALO (`perpMakerOrder`) and its `cancelByCloid` (`perpMakerCancel`), nonces ascending. */
export async function signMakerOrders(wallet: LocalAccount, input: MakerOrdersInput, network: VenueNetwork, nonces: VenueNonces): Promise<{ perpMakerOrder: SignedVenueOrder; perpMakerCancel: SignedVenueOrder }> {
  const c = newCloid();
  const order = {
    type: 'order',
    orders: [{ a: input.asset.index, b: input.side === 'SELL', p: formatAmount(input.price, USDC_DECIMALS), s: input.size, r: false, t: { limit: { tif: 'Alo' } }, c }],
    grouping: 'na',
  };
  const perpMakerOrder = await signVenueAction(wallet, order, nonces.next(), network);
  const perpMakerCancel = await signVenueAction(wallet, { type: 'cancelByCloid', cancels: [{ asset: input.asset.index, cloid: c }] }, nonces.next(), network);
  return { perpMakerOrder, perpMakerCancel };
}

/**
 * A default `quoteLimit` for a perp RFQ with none given: the venue's touch (BUY: best ask, SELL:
 * best bid) moved `slippageBp` against the taker, times the size, in USDC. The maker's quote
 * and the taker's IOC both stay within it (spec: per-unit limit = `quoteLimit / baseQty`).
 */
export function perpDefaultLimit(side: Side, size: string, touch: VenueTouch, slippageBp: number): string {
  const edge = side === 'BUY' ? touch.bestAsk : touch.bestBid;
  if (edge === null) throw new Error(`the venue's book has no ${side === 'BUY' ? 'asks' : 'bids'}: give --limit`);
  const sizeDecimals = fractionDigits(size);
  const sizeUnits = parseAmount(size, sizeDecimals, { field: 'size', positive: true });
  const scale = 10n ** BigInt(sizeDecimals);
  const bp = BigInt(slippageBp);
  const limit = side === 'BUY'
    ? (edge * (10_000n + bp) * sizeUnits + 10_000n * scale - 1n) / (10_000n * scale)
    : (edge * (10_000n - bp) * sizeUnits) / (10_000n * scale);
  return formatAmount(limit, USDC_DECIMALS);
}
