// How much like the real venue the simulator behaves. `fast` (the default: `npm start`, the
// tests' default) answers at once and limits nothing; `realistic` does what the venue's
// documentation says it does (sim/venue/README.md names the document for each behaviour).

export type SimProfileName = 'fast' | 'realistic';

/**
 * The books' motion and the other traders on them (other-traders.ts). Rates and sizes are kept
 * modest: a maker's order at the top queues behind the other makers and is lifted by a third
 * party sometimes, not always.
 */
export type MovingBookConfig = {
  /** Every book's mid walks so, unless its liquidity names a walk of its own. */
  walk: { stepBps: number; intervalMs: number };
  /** This many other makers, each keeping one order of `notionalUsd` (decimal string) at the best bid and the best ask. */
  makers: { count: number; notionalUsd: string };
  /** Each `intervalMs` of sim time, with `chancePct` percent, one of `count` other takers sends an IOC at the best bid or ask for a notional uniform in [$10, maxNotionalUsd]. */
  takers: { count: number; intervalMs: number; chancePct: number; maxNotionalUsd: string };
};

/** A reply's added delay: uniform in [minMs, maxMs], and with `tailProbability` a further uniform [0, tailMs]. */
export type LatencyConfig = { minMs: number; maxMs: number; tailProbability: number; tailMs: number };

export type SimProfile = {
  name: SimProfileName;
  /** Request weight per minute per client address, `/info` and `/exchange` together (429 past it); null: no limit. */
  weightPerMin: number | null;
  /** Added to every `/info` and `/exchange` reply (never to `/_sim/*`); null: none. */
  latency: LatencyConfig | null;
  /** An order placed less than this long ago reads `unknownOid` (another API server has not seen it yet). */
  readLagMs: number;
  /** `approveBuilderFee` naming a builder whose perps account value is below this (USDC, decimal string) is refused; null: not checked. */
  builderMinAccountValueUsd: string | null;
  /** Most rows one reply returns; null: all. */
  pageCaps: { ledgerUpdates: number; fills: number } | null;
  /** One-tick spreads, moving mids, other makers and takers; null: the books stay as the liquidity account lays them. */
  movingBook: MovingBookConfig | null;
};

export const PROFILES: Readonly<Record<SimProfileName, SimProfile>> = {
  fast: { name: 'fast', weightPerMin: null, latency: null, readLagMs: 0, builderMinAccountValueUsd: null, pageCaps: null, movingBook: null },
  realistic: {
    name: 'realistic',
    weightPerMin: 1200,
    latency: { minMs: 50, maxMs: 400, tailProbability: 0.02, tailMs: 1000 },
    readLagMs: 300,
    builderMinAccountValueUsd: '100',
    pageCaps: { ledgerUpdates: 500, fills: 2000 },
    movingBook: {
      walk: { stepBps: 1, intervalMs: 2_000 },
      makers: { count: 2, notionalUsd: '1000' },
      takers: { count: 2, intervalMs: 1_000, chancePct: 10, maxNotionalUsd: '4000' },
    },
  },
};

/** `name` with any part overridden (e.g. a fixed latency for a benchmark). */
export function resolveProfile(name: SimProfileName = 'fast', overrides: Partial<Omit<SimProfile, 'name'>> = {}): SimProfile {
  return { ...PROFILES[name], ...overrides };
}

export function isProfileName(value: unknown): value is SimProfileName {
  return value === 'fast' || value === 'realistic';
}

/** One reply's delay under `latency`, drawn with `random` (values in [0, 1)). */
export function drawLatencyMs(latency: LatencyConfig, random: () => number = Math.random): number {
  const base = latency.minMs + (latency.maxMs - latency.minMs) * random();
  return Math.round(base + (random() < latency.tailProbability ? latency.tailMs * random() : 0));
}

/** Weight spent per client over a rolling minute (the venue's "per minute" read as the strictest window). */
export class WeightLimiter {
  readonly #limit: number;
  readonly #spent = new Map<string, Array<{ at: number; weight: number }>>();

  constructor(limitPerMin: number) {
    this.#limit = limitPerMin;
  }

  /** Takes `weight` for `client`, or returns how many ms until it would fit. */
  take(client: string, weight: number, now: number): { ok: true } | { ok: false; retryAfterMs: number } {
    const entries = (this.#spent.get(client) ?? []).filter((e) => e.at > now - 60_000);
    let used = entries.reduce((sum, e) => sum + e.weight, 0);
    if (used + weight > this.#limit) {
      let retryAfterMs = 60_000;
      for (const e of entries) {
        used -= e.weight;
        if (used + weight <= this.#limit) {
          retryAfterMs = e.at + 60_000 - now;
          break;
        }
      }
      this.#spent.set(client, entries);
      return { ok: false, retryAfterMs: Math.max(1, retryAfterMs) };
    }
    entries.push({ at: now, weight });
    this.#spent.set(client, entries);
    return { ok: true };
  }

  /** Weight the reply adds once known (the item-priced histories). */
  add(client: string, weight: number, now: number): void {
    if (weight <= 0) return;
    const entries = this.#spent.get(client) ?? [];
    entries.push({ at: now, weight });
    this.#spent.set(client, entries);
  }
}
