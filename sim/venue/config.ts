// What the simulated venue lists and how it behaves; every part can be overridden by the caller.

export type PerpAssetConfig = { name: string; szDecimals: number; maxLeverage: number };
export type SpotTokenConfig = { name: string; szDecimals: number; weiDecimals: number; tokenId: `0x${string}` };
/** A spot pair by token names; `name` defaults to the venue's convention (`PURR/USDC` for pair 0, `@<index>` after). */
export type SpotPairConfig = { base: string; quote: string; name?: string };

/** The seeded liquidity account's levels around a mid, per coin. */
export type LiquidityConfig = {
  /** Decimal string in USDC. */
  mid: string;
  /** Levels on each side. */
  levels: number;
  /** Distance of the first level from the mid. */
  halfSpreadBps: number;
  /** Distance between levels. */
  stepBps: number;
  /** USDC value of each level (decimal string). */
  levelNotionalUsd: string;
  /** A seeded random walk of the mid (one step of +-stepBps each intervalMs of sim time), or a fixed mid. */
  walk: { stepBps: number; intervalMs: number } | null;
};

export type FeeConfig = {
  perpMakerTenthBp: number;
  perpTakerTenthBp: number;
  spotMakerTenthBp: number;
  spotTakerTenthBp: number;
};

export type NonceConfig = {
  /** The venue keeps this many highest nonces per signer. */
  setSize: number;
  /** A nonce must be above now - pastWindowMs ... */
  pastWindowMs: number;
  /** ... and below now + futureWindowMs. */
  futureWindowMs: number;
};

export type VenueSimConfig = {
  /** Which chain the simulator is: L1 actions are signed with source `a` (mainnet) or `b` (testnet). */
  network: 'mainnet' | 'testnet';
  perps: PerpAssetConfig[];
  spotTokens: SpotTokenConfig[];
  spotPairs: SpotPairConfig[];
  /** Keyed by the venue's coin name (`BTC`, `PURR/USDC`, `@1`) or a pair's `BASE/QUOTE`. */
  liquidity: Record<string, LiquidityConfig>;
  fees: FeeConfig;
  nonces: NonceConfig;
  /** Decimal string, USDC. */
  minOrderValueUsd: string;
  /** Largest builder fee on a perp order, tenths of a basis point (0.1 %). */
  maxPerpBuilderFeeTenthBp: number;
  /** Largest builder fee on a spot order, tenths of a basis point (1 %). */
  maxSpotBuilderFeeTenthBp: number;
  /** Validity of an API wallet approved without ` valid_until <ms>` in its name. */
  agentDefaultValidityMs: number;
};

const DAY_MS = 86_400_000;

function level(mid: string, levelNotionalUsd: string): LiquidityConfig {
  return { mid, levels: 10, halfSpreadBps: 1, stepBps: 2, levelNotionalUsd, walk: null };
}

export const DEFAULT_CONFIG: VenueSimConfig = {
  network: 'mainnet',
  perps: [
    { name: 'BTC', szDecimals: 5, maxLeverage: 40 },
    { name: 'ETH', szDecimals: 4, maxLeverage: 25 },
    { name: 'SOL', szDecimals: 2, maxLeverage: 20 },
  ],
  // Token ids as the venue publishes them for these names.
  spotTokens: [
    { name: 'USDC', szDecimals: 8, weiDecimals: 8, tokenId: '0x6d1e7cde53ba9467b783cb7c530ce054' },
    { name: 'PURR', szDecimals: 0, weiDecimals: 5, tokenId: '0xc4bf3f870c0e9465323c0b6ed28096c2' },
    { name: 'HYPE', szDecimals: 2, weiDecimals: 8, tokenId: '0x0d01dc56dcaaca66ad901c959b4011ec' },
  ],
  spotPairs: [
    { base: 'PURR', quote: 'USDC' },
    { base: 'HYPE', quote: 'USDC' },
  ],
  liquidity: {
    BTC: level('100000', '50000'),
    ETH: level('3500', '50000'),
    SOL: level('150', '20000'),
    'PURR/USDC': level('0.2', '5000'),
    'HYPE/USDC': level('40', '20000'),
  },
  fees: { perpMakerTenthBp: 15, perpTakerTenthBp: 45, spotMakerTenthBp: 40, spotTakerTenthBp: 70 },
  // The venue's current rule (its "Nonces and API wallets" page): the 20 highest kept, within a day of its clock.
  nonces: { setSize: 20, pastWindowMs: DAY_MS, futureWindowMs: DAY_MS },
  minOrderValueUsd: '10',
  maxPerpBuilderFeeTenthBp: 100,
  maxSpotBuilderFeeTenthBp: 1000,
  agentDefaultValidityMs: 180 * DAY_MS,
};

export type VenueSimConfigInput = Partial<Omit<VenueSimConfig, 'fees' | 'nonces'>> & {
  fees?: Partial<FeeConfig>;
  nonces?: Partial<NonceConfig>;
};

export function resolveConfig(input: VenueSimConfigInput = {}): VenueSimConfig {
  const config: VenueSimConfig = {
    ...DEFAULT_CONFIG,
    ...input,
    fees: { ...DEFAULT_CONFIG.fees, ...input.fees },
    nonces: { ...DEFAULT_CONFIG.nonces, ...input.nonces },
  };
  for (const t of config.spotTokens) {
    if (t.weiDecimals > 8 || t.szDecimals > t.weiDecimals) {
      throw new Error(`spot token ${t.name}: weiDecimals must be <= 8 and >= szDecimals`);
    }
  }
  for (const p of config.perps) if (p.szDecimals > 6) throw new Error(`perp ${p.name}: szDecimals must be <= 6`);
  if (config.nonces.setSize < 1) throw new Error('nonces.setSize must be >= 1');
  return config;
}
