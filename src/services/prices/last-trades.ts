/**
 * The reference price of the price band (src/domain/prices/price-band.ts): an instrument's last
 * trade, the winning quote's price on its most recent settled RFQ. Read through
 * `rfqs_by_instrument` (newest first, one row) and cached per node for `ttlMs`, so ladders, which
 * arrive several times a second per maker, cost no query each.
 */
import { tradePrice } from '../../domain/prices/index.ts';
import type { Instrument } from '../../domain/rfq/index.ts';
import { lastSettledTrade } from '../../store/last-trade.ts';
import type { Reader } from '../../store/transaction.ts';

export class LastTrades {
  readonly #ttlMs: number;
  readonly #cache = new Map<string, { price: bigint | null; at: number }>();

  constructor(ttlMs = 5_000) {
    this.#ttlMs = ttlMs;
  }

  /** The instrument's last trade price (scaled by 10^PRICE_DECIMALS), or null if it never traded. */
  async price(db: Reader, instrument: Instrument, now: number): Promise<bigint | null> {
    const cached = this.#cache.get(instrument.instrumentId);
    if (cached && now - cached.at < this.#ttlMs) return cached.price;
    const row = await lastSettledTrade(db, instrument.instrumentId);
    const price = row ? tradePrice(instrument, row.side, { makerPays: BigInt(row.maker_pays_amount), makerReceives: BigInt(row.maker_receives_amount) }) : null;
    this.#cache.set(instrument.instrumentId, { price, at: now });
    return price;
  }
}
