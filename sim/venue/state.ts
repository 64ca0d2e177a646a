// The simulator's whole state: one plain object, serialised to JSON (bigints tagged) and written
// atomically after each mutation, before the reply.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { FeeConfig, LiquidityConfig, NonceConfig, VenueSimConfig } from './config.ts';
import type { FaultRule } from './faults.ts';

export type Address = `0x${string}`;
export type Tif = 'Gtc' | 'Ioc' | 'Alo' | 'FrontendMarket';
export type OrderStatus =
  | 'open'
  | 'filled'
  | 'canceled'
  | 'rejected'
  | 'selfTradeCanceled'
  | 'tickRejected'
  | 'minTradeNtlRejected'
  | 'perpMarginRejected'
  | 'badAloPxRejected'
  | 'iocCancelRejected'
  | 'insufficientSpotBalanceRejected';

export type Market = {
  asset: number;
  /** The venue's coin name: perp name, or spot pair name (`PURR/USDC`, `@1`). */
  coin: string;
  isSpot: boolean;
  szDecimals: number;
  maxLeverage: number;
  /** Spot only: token indexes. */
  baseToken: number;
  quoteToken: number;
  liquidity: LiquidityConfig | null;
  /** Current mid in units (the walk moves it). */
  mid: bigint;
  /** Last walk step applied (sim time / intervalMs). */
  walkStep: number;
  /** Profile `movingBook` only: false pins this book (no profile walk, no other traders); absent: it moves. */
  moving?: boolean;
  /** Profile `movingBook` only: the last other-taker step applied (sim time / takers.intervalMs). */
  takerStep?: number;
};

export type Order = {
  oid: number;
  user: Address;
  asset: number;
  coin: string;
  isBuy: boolean;
  limitPx: bigint;
  /** Remaining size. */
  sz: bigint;
  origSz: bigint;
  cloid: `0x${string}` | null;
  tif: Tif;
  reduceOnly: boolean;
  timestamp: number;
  status: OrderStatus;
  statusTimestamp: number;
  builder: { b: Address; f: number } | null;
  /** Perp: USDC margin held while resting. Spot: amount of `holdToken` held while resting. */
  hold: bigint;
  holdToken: number | null;
};

/** A fill exactly as `userFills` shows it. */
export type FillRecord = {
  coin: string;
  px: string;
  sz: string;
  side: 'B' | 'A';
  time: number;
  startPosition: string;
  dir: string;
  closedPnl: string;
  hash: `0x${string}`;
  oid: number;
  crossed: boolean;
  fee: string;
  builderFee?: string;
  tid: number;
  cloid?: `0x${string}`;
  feeToken: string;
  twapId: null;
};

/** A ledger update exactly as `userNonFundingLedgerUpdates` shows it. */
export type LedgerRecord = { time: number; hash: `0x${string}`; delta: Record<string, unknown> & { type: string } };

export type Position = { szi: bigint; entryNtl: bigint };
export type SpotBalance = { total: bigint; hold: bigint };

export type UserState = {
  /** Perp USDC cash (deposits, transfers, realised PnL, fees). */
  perpUsd: bigint;
  positions: Record<string, Position>;
  spot: Record<string, SpotBalance>;
  /** builder address -> approved max fee, tenths of a basis point. */
  builderApprovals: Record<string, number>;
  fills: FillRecord[];
  ledger: LedgerRecord[];
};

export type Agent = { address: Address; master: Address; name: string; validUntil: number };

/** An action accepted for `applyLater`: applied when its time comes, also after a restart. */
export type DeferredApply = { dueAtMs: number; body: unknown };

export type SimState = {
  version: 1;
  network: 'mainnet' | 'testnet';
  seed: number;
  fees: FeeConfig;
  nonceConfig: NonceConfig;
  minOrderValue: bigint;
  maxPerpBuilderFeeTenthBp: number;
  maxSpotBuilderFeeTenthBp: number;
  agentDefaultValidityMs: number;
  perps: { name: string; szDecimals: number; maxLeverage: number }[];
  spotTokens: VenueSimConfig['spotTokens'];
  spotPairs: { base: number; quote: number; name: string }[];
  markets: Record<string, Market>;
  liquidityAddress: Address;
  /** Sim time = wall clock + offset, or frozen at a value. */
  clockOffsetMs: number;
  frozenAtMs: number | null;
  nextOid: number;
  nextTid: number;
  users: Record<string, UserState>;
  /** API wallets by agent address (lower case). */
  agents: Record<string, Agent>;
  /** signer (lower case) -> its highest nonces, ascending. */
  nonces: Record<string, number[]>;
  orders: Record<string, Order>;
  /** `${user}:${cloid}` -> oid. */
  cloids: Record<string, number>;
  /** asset -> resting oids in priority order (best price first, then time). */
  books: Record<string, { bids: number[]; asks: number[] }>;
  faults: FaultRule[];
  nextFaultId: number;
  deferred: DeferredApply[];
};

export function emptyUser(): UserState {
  return { perpUsd: 0n, positions: {}, spot: {}, builderApprovals: {}, fills: [], ledger: [] };
}

export function serializeState(state: SimState): string {
  return JSON.stringify(state, (_k, v) => (typeof v === 'bigint' ? { $big: v.toString() } : v));
}

export function deserializeState(text: string): SimState {
  return JSON.parse(text, (_k, v) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.$big === 'string' && Object.keys(v).length === 1
      ? BigInt(v.$big)
      : v,
  ) as SimState;
}

const STATE_FILE = 'state.json';

export function loadState(dataDir: string): SimState | null {
  const file = join(dataDir, STATE_FILE);
  return existsSync(file) ? deserializeState(readFileSync(file, 'utf8')) : null;
}

/** Temp file, fsync, rename, fsync of the directory: a crash leaves the old or the new state, never a torn one. */
export function saveState(dataDir: string, state: SimState): void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, STATE_FILE);
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, serializeState(state));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const dirFd = openSync(dataDir, 'r');
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
