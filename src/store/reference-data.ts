/**
 * Tokens and instruments, read often and changed rarely by the operator. Cached per node for
 * `ttlMs` (default 1 s) so requests do not each read them; a change made on this node is visible
 * at once, on other nodes within the TTL.
 */
import type { Instrument } from '../domain/rfq/types.ts';
import type { Reader } from './transaction.ts';

export interface Token {
  symbol: string;
  decimals: number;
  address: string | null;
}

export interface ReferenceSnapshot {
  tokens: Map<string, Token>;
  instruments: Map<string, Instrument>;
  loadedAt: number;
}

export async function loadReferenceData(db: Reader, now: number): Promise<ReferenceSnapshot> {
  const [tokenRows, instrumentRows] = await Promise.all([
    db.selectFrom('tokens').selectAll().execute(),
    db.selectFrom('instruments').selectAll().orderBy('instrument_id').execute(),
  ]);
  const tokens = new Map(tokenRows.map((t) => [t.symbol, { symbol: t.symbol, decimals: t.decimals, address: t.address }]));
  const instruments = new Map<string, Instrument>();
  for (const row of instrumentRows) {
    instruments.set(row.instrument_id, {
      instrumentId: row.instrument_id,
      base: row.base,
      quote: row.quote,
      baseDecimals: tokens.get(row.base)?.decimals ?? 0,
      quoteDecimals: tokens.get(row.quote)?.decimals ?? 0,
      type: row.type,
      takerFeeTenthBp: row.taker_fee_tenth_bp,
      minQuoteNotional: row.min_quote_notional,
      enabled: row.enabled,
    });
  }
  return { tokens, instruments, loadedAt: now };
}

export class ReferenceData {
  readonly #db: Reader;
  readonly #now: () => number;
  readonly #ttlMs: number;
  #snapshot: ReferenceSnapshot | null = null;
  #loading: Promise<ReferenceSnapshot> | null = null;

  constructor(db: Reader, now: () => number, ttlMs = 1000) {
    this.#db = db;
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  async current(): Promise<ReferenceSnapshot> {
    const snapshot = this.#snapshot;
    if (snapshot && this.#now() - snapshot.loadedAt < this.#ttlMs) return snapshot;
    this.#loading ??= loadReferenceData(this.#db, this.#now()).then(
      (loaded) => {
        this.#snapshot = loaded;
        this.#loading = null;
        return loaded;
      },
      (error: unknown) => {
        this.#loading = null;
        throw error;
      },
    );
    return this.#loading;
  }

  invalidate(): void {
    this.#snapshot = null;
  }
}
