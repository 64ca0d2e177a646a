/**
 * `createOrder`: validates on the venue's grids (never rounds), records the delegated order
 * (`dord_`, UUID, client order id) and locks its funds in one transaction, then wakes the venue
 * worker that signs and sends it. The layout decides the rules (DESIGN.md section 10).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { ServiceError } from '../../domain/errors.ts';
import { parseSpotPrice, parseSpotSize, priceToGrid, validationError } from '../../domain/v0/venue-grid.ts';
import { orderLock, PPM } from '../../domain/v0/order-money.ts';
import { tokenDecimalsOf } from '../../store/reference-writes.ts';
import { recordV0OrderLocked } from '../../store/v0-order-record.ts';
import { uuidv7 } from '../ids.ts';
import { NO_ACCOUNT, requireAccount } from './accounts.ts';
import { resolveMarket, venueMeta } from './discovery.ts';
import { VenueUnavailableError } from './venue-port.ts';
import type { V0Deps } from './v0-deps.ts';

export type V0Layout = 'wrapped' | 'flat';

export interface CreateOrderInput {
  side?: unknown;
  orderType?: unknown;
  baseToken?: unknown;
  quoteToken?: unknown;
  amount?: unknown;
  price?: unknown;
}

/** The wrapped layout's token set (spec rule 2). */
export const WRAPPED_TOKENS = ['USDC', 'HYPE'];

export interface CreatedOrder {
  id: string;
  orderUuid: string;
  cloid: string;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], field: string): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw validationError(field, `must be one of ${allowed.join(', ')}`);
  return value as T;
}

function tokenField(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9]{1,20}$/.test(value)) throw validationError(field, 'must be a token name');
  return value;
}

/** Ledger decimals of `symbols` from the reference data (cached), read from the store for any it lacks. */
async function ledgerDecimals(deps: V0Deps, symbols: string[]): Promise<Map<string, number>> {
  const known = (await deps.service.refdata.current()).tokens;
  const decimals = new Map(symbols.flatMap((symbol) => (known.has(symbol) ? [[symbol, known.get(symbol)!.decimals] as const] : [])));
  const missing = symbols.filter((symbol) => !decimals.has(symbol));
  if (missing.length > 0) for (const t of await tokenDecimalsOf(deps.service.db, missing)) decimals.set(t.symbol, t.decimals);
  return decimals;
}

export async function createOrder(deps: V0Deps, identity: string, layout: V0Layout, input: CreateOrderInput): Promise<CreatedOrder> {
  const side = oneOf(input.side, ['buy', 'sell'] as const, 'side');
  const orderType = oneOf(input.orderType, ['limit', 'market'] as const, 'orderType');
  const baseToken = tokenField(input.baseToken, 'baseToken');
  const quoteToken = tokenField(input.quoteToken, 'quoteToken');
  if (layout === 'wrapped') {
    for (const [field, token] of [['baseToken', baseToken], ['quoteToken', quoteToken]] as const) {
      if (!WRAPPED_TOKENS.includes(token)) throw validationError(field, `must be one of ${WRAPPED_TOKENS.join(', ')}`);
    }
  }
  const needsPrice = layout === 'flat' || orderType === 'limit';
  if (needsPrice && input.price === undefined) throw validationError('price', 'is required');
  const meta = await venueMeta(deps.venue);
  const market = resolveMarket(meta, baseToken, quoteToken);
  if (market === null) throw new ServiceError('ORDER_ERROR', `no market ${baseToken}/${quoteToken}; see getMarkets`);
  const amount = parseSpotSize(input.amount, market.base.szDecimals, market.base.weiDecimals);
  let price: bigint;
  if (needsPrice) price = parseSpotPrice(input.price, market.base.szDecimals);
  else {
    let best: bigint | null;
    try {
      best = await deps.venue.bestOppositePrice(market.pair.name, side);
    } catch (error) {
      if (error instanceof VenueUnavailableError) throw new ServiceError('SERVICE_UNAVAILABLE', 'the venue cannot be reached');
      throw error;
    }
    if (best === null) throw new ServiceError('ORDER_ERROR', 'no liquidity on the opposite side for a market order');
    const slip = BigInt(deps.settings.marketSlippagePpm);
    price = side === 'buy' ? priceToGrid((best * (PPM + slip)) / PPM, market.base.szDecimals, 'down') : priceToGrid((best * (PPM - slip) + PPM - 1n) / PPM, market.base.szDecimals, 'up');
  }
  const tif = layout === 'flat' || orderType === 'market' ? 'Ioc' : 'Gtc';

  const now = deps.service.clock.now();
  const created: CreatedOrder = { id: `dord_${uuidv7(now)}`, orderUuid: randomUUID(), cloid: `0x${randomBytes(16).toString('hex')}` };
  const decimalsOf = await ledgerDecimals(deps, [baseToken, quoteToken]);
  const baseLedgerDecimals = decimalsOf.get(baseToken);
  const quoteLedgerDecimals = decimalsOf.get(quoteToken);
  if (baseLedgerDecimals === undefined || quoteLedgerDecimals === undefined) {
    // A token the ledger does not know holds nothing: nothing can be locked.
    await requireAccount(deps.service.db, identity);
    throw new ServiceError('ORDER_ERROR', 'insufficient available balance');
  }
  const lock = orderLock(side, amount, price, { baseWeiDecimals: market.base.weiDecimals, baseLedgerDecimals, quoteLedgerDecimals });
  // The order and its lock are one statement (src/store/v0-order-record.ts): one round trip.
  const outcome = await recordV0OrderLocked(
    deps.service.db,
    identity,
    { id: created.id, order_uuid: created.orderUuid, cloid: created.cloid, side, order_type: orderType, tif, base_token: baseToken, quote_token: quoteToken, asset: market.asset, amount, price, status: 'pending', created_at: now, updated_at: now },
    { lockId: deps.service.ids.uuid(), token: lock.token === 'quote' ? quoteToken : baseToken, rail: 'VENUE', amount: lock.amount },
  );
  if (!outcome.recorded) throw outcome.reason === 'noAccount' ? new ServiceError('USER_NOT_FOUND', NO_ACCOUNT) : new ServiceError('ORDER_ERROR', 'insufficient available balance');
  void deps.venue.wake({
    id: created.id,
    order_uuid: created.orderUuid,
    cloid: created.cloid,
    account_id: outcome.accountId,
    side,
    order_type: orderType,
    tif,
    base_token: baseToken,
    quote_token: quoteToken,
    asset: market.asset,
    amount,
    price,
    status: 'pending',
    filled_amount: 0n,
    filled_notional: 0n,
    venue_filled_amount: null,
    quote_settled: 0n,
    oid: null,
    error_message: null,
    cancel_requested: false,
    created_at: now,
    updated_at: now,
  });
  return created;
}
