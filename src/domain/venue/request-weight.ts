/**
 * The venue's request weight (Hyperliquid's "rate limits" document): one budget per minute per
 * egress address, shared by `/info` and `/exchange`. An exchange action weighs 1 + floor(batch /
 * 40); the cheap info reads 2, `userRole` 60, every other info read 20; the fill and order
 * histories add 1 per 20 items they return. Priorities say which work is refused first as the
 * minute's budget fills (DESIGN: taker sends and the maker's pre-signed cancel last).
 */

/** 1: sends (taker orders, the maker's order and cancel, `/v0` orders); 2: execution reads; 3: quote-time reads; 4: background catch-up. */
export type VenuePriority = 1 | 2 | 3 | 4;

export const VENUE_PRIORITIES: readonly VenuePriority[] = [1, 2, 3, 4];

/** The names `/metrics` labels priorities with. */
export const PRIORITY_NAMES: Readonly<Record<VenuePriority, string>> = { 1: 'send', 2: 'execution', 3: 'quote', 4: 'background' };

/**
 * The share of the budget a priority may fill up to. Background stops at half, quote-time reads
 * at three quarters (so quotes are refused while executions can still run), execution reads at
 * nine tenths, sends may use it all.
 */
export const PRIORITY_SHARE: Readonly<Record<VenuePriority, number>> = { 1: 1, 2: 0.9, 3: 0.75, 4: 0.5 };

const CHEAP_INFO = new Set(['l2Book', 'allMids', 'clearinghouseState', 'orderStatus', 'spotClearinghouseState', 'exchangeStatus']);
const ITEM_PRICED_INFO = new Set(['userFills', 'userFillsByTime', 'historicalOrders']);
const EXCHANGE_BATCH_PER_WEIGHT = 40;
const ITEMS_PER_WEIGHT = 20;

/** The weight the venue counts for a request before it answers. */
export function requestWeight(endpoint: 'info' | 'exchange' | 'explorer', payload: unknown): number {
  const body = (payload ?? {}) as { type?: unknown; action?: { type?: unknown; orders?: unknown; cancels?: unknown; modifies?: unknown } };
  if (endpoint === 'exchange') {
    const action = body.action ?? {};
    const batch = [action.orders, action.cancels, action.modifies].find(Array.isArray) as unknown[] | undefined;
    return 1 + Math.floor((batch?.length ?? 0) / EXCHANGE_BATCH_PER_WEIGHT);
  }
  const type = typeof body.type === 'string' ? body.type : '';
  if (CHEAP_INFO.has(type)) return 2;
  if (type === 'userRole') return 60;
  return 20;
}

/** The weight a reply adds once it is read: the item-priced histories, 1 per 20 items. */
export function replyWeight(endpoint: 'info' | 'exchange' | 'explorer', payload: unknown, reply: unknown): number {
  if (endpoint !== 'info' || !Array.isArray(reply)) return 0;
  const type = (payload as { type?: unknown } | null)?.type;
  return typeof type === 'string' && ITEM_PRICED_INFO.has(type) ? Math.floor(reply.length / ITEMS_PER_WEIGHT) : 0;
}

/**
 * The weight spent over the last minute, estimated from two fixed one-minute windows: all of the
 * current one and the part of the previous one still inside the last 60 s, as if it was spent
 * evenly. A budget kept by fixed windows alone would admit twice the limit across a boundary.
 */
export function slidingWeight(current: number, previous: number, elapsedInWindowMs: number, windowMs: number): number {
  return current + previous * Math.max(0, (windowMs - elapsedInWindowMs) / windowMs);
}

/** Whether a request of `weight` at `priority` fits, with `used` already spent this minute. */
export function admits(used: number, weight: number, budgetPerMin: number, priority: VenuePriority): boolean {
  return used + weight <= budgetPerMin * PRIORITY_SHARE[priority];
}
