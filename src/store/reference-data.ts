/**
 * Tokens and instruments, read often and changed rarely by the operator. Cached per node for
 * `ttlMs` (default 1 s) so requests do not each read them; a change made on this node is visible
 * at once, on other nodes within the TTL.
 */
import type { Instrument } from '../domain/rfq/types.ts';
import { PERP_BASE_DECIMALS } from '../domain/perp/types.ts';
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
      // A perp's base is a venue coin: its amounts use one fixed scale (the size grid is the venue's szDecimals).
      baseDecimals: row.type === 'PERP' ? PERP_BASE_DECIMALS : (tokens.get(row.base)?.decimals ?? 0),
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

  /**
   * The current snapshot. Past its TTL it is still returned while a refresh runs in the
   * background (stale-while-revalidate), so a caller inside a transaction never waits for a
   * second connection (PGlite has only one). Only the very first load is awaited.
   */
  async current(): Promise<ReferenceSnapshot> {
    const snapshot = this.#snapshot;
    if (snapshot === null) return this.#loading ?? this.reload();
    if (this.#now() - snapshot.loadedAt >= this.#ttlMs && this.#loading === null) void this.reload().catch(() => undefined);
    return snapshot;
  }

  /** Loads a fresh snapshot now (operator writes await this so their change is visible at once). */
  reload(): Promise<ReferenceSnapshot> {
    const loading: Promise<ReferenceSnapshot> = loadReferenceData(this.#db, this.#now()).then(
      (loaded) => {
        if (this.#snapshot === null || loaded.loadedAt >= this.#snapshot.loadedAt) this.#snapshot = loaded;
        if (this.#loading === loading) this.#loading = null;
        return loaded;
      },
      (error: unknown) => {
        if (this.#loading === loading) this.#loading = null;
        throw error;
      },
    );
    this.#loading = loading;
    return loading;
  }
}
