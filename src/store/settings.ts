/**
 * Operator settings (DESIGN.md section 6), stored as one row per key, defaults applied on read.
 */
import type { Reader, Tx } from './transaction.ts';

export interface OperatorSettings {
  /** Longest auction window; `windowMs`/`windowSecs` are clamped to [1000, maxWindowMs]. */
  maxWindowMs: number;
  /** Added to ceil(auctionEndsAt / 1000) to give settlementDeadline (seconds). */
  settlementHeadroomSecs: number;
  /** Failed settlements by one maker within `makerFailureWindowMs` that suspend it. */
  makerFailureThreshold: number;
  makerFailureWindowMs: number;
  /** First suspension length; doubles on each repeat. */
  makerSuspensionBaseMs: number;
  /** PENDING RFQs one account may hold at once; one more is 409 TOO_MANY_OPEN_RFQS (DESIGN.md section 11). */
  maxOpenRfqsPerAccount: number;
  /** A permit2 relay later than this after the selection is a late relay, counted as a maker failure (DESIGN.md section 15). */
  relayGraceSecs: number;
  /** Every ladder level must lie within this many bp of the instrument's last trade; 0: unbanded. */
  ladderBandBps: number;
}

export const defaultSettings: Readonly<OperatorSettings> = Object.freeze({
  maxWindowMs: 30_000,
  settlementHeadroomSecs: 60,
  makerFailureThreshold: 3,
  makerFailureWindowMs: 3_600_000,
  makerSuspensionBaseMs: 600_000,
  maxOpenRfqsPerAccount: 20,
  relayGraceSecs: 10,
  ladderBandBps: 2_000,
});

export const settingKeys = Object.keys(defaultSettings) as Array<keyof OperatorSettings>;

export async function readSettings(db: Reader): Promise<OperatorSettings> {
  const rows = await db.selectFrom('settings').selectAll().execute();
  const settings: OperatorSettings = { ...defaultSettings };
  for (const row of rows) {
    if ((settingKeys as string[]).includes(row.key) && typeof row.value === 'number') {
      settings[row.key as keyof OperatorSettings] = row.value;
    }
  }
  return settings;
}

export async function writeSettings(tx: Tx, changes: Partial<OperatorSettings>): Promise<void> {
  for (const [key, value] of Object.entries(changes)) {
    await tx
      .insertInto('settings')
      .values({ key, value: JSON.stringify(value) })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(value) }))
      .execute();
  }
}

/** Per-node cache of the settings (TTL 1 s); a write on this node invalidates it at once. */
export class SettingsCache {
  readonly #db: Reader;
  readonly #ttlMs: number;
  #cached: { settings: OperatorSettings; at: number } | null = null;

  constructor(db: Reader, ttlMs = 1000) {
    this.#db = db;
    this.#ttlMs = ttlMs;
  }

  async current(now: number): Promise<OperatorSettings> {
    if (this.#cached && now - this.#cached.at < this.#ttlMs) return this.#cached.settings;
    const settings = await readSettings(this.#db);
    this.#cached = { settings, at: now };
    return settings;
  }

  invalidate(): void {
    this.#cached = null;
  }
}
