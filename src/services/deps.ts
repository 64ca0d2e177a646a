/**
 * What every use case receives as its first argument. No globals: tests and nodes build their own.
 */
import type { Db } from '../store/transaction.ts';
import type { ReferenceData } from '../store/reference-data.ts';
import type { SettingsCache } from '../store/settings.ts';
import type { IdSource } from './ids.ts';
import type { SecretBox } from './secret-box.ts';
import type { TakerPseudonyms } from './conduct/taker-pseudonyms.ts';
import type { LastTrades } from './prices/last-trades.ts';
import type { SettlementGateways } from './rfq/settlement-gateway.ts';
import type { QuoteCaches } from './rfq/quote-caches.ts';
import type { QuoteWriter } from './rfq/write-quote.ts';
import type { XchangeOperation } from './rfq/xchange-bundle.ts';
import type { CustodyChainReader } from './funds/custody-chain.ts';
import type { ChainLogReplay } from './funds/chain-log-replay.ts';
import type { PerpVenue } from './perp/venue-port.ts';

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface AuthSettings {
  siweDomain: string;
  chainId: number;
  /** Allowed distance between Service-API-Timestamp and the server clock, either way. */
  timestampSkewMs: number;
  challengeTtlMs: number;
  defaultKeyLifetimeSecs: number;
  maxKeyLifetimeSecs: number;
  /** Unexpired, unused sign-in challenges one source address may hold; beyond: 429. */
  maxLiveChallengesPerSource: number;
}

export const defaultAuthSettings = {
  timestampSkewMs: 30_000,
  challengeTtlMs: 5 * 60_000,
  defaultKeyLifetimeSecs: 14 * 24 * 3600,
  maxKeyLifetimeSecs: 90 * 24 * 3600,
  maxLiveChallengesPerSource: 100,
} as const;

/** Per-node reactions to committed changes (timers); they never carry state of their own. */
export interface ServiceHooks {
  /** An RFQ was committed with this auction deadline: schedule its close precisely. */
  auctionScheduled(rfqId: string, auctionEndsAt: number): void;
  /** A quote was selected: settlement may begin (timers for its deadline). */
  quoteSelected(rfqId: string, settlementDeadlineSecs: number): void;
  /** A perp accept was recorded: its execution may start now. Optional: absent, the sweep finds it. */
  perpAccepted?(executionId: string): void;
  /**
   * A perp accept was recorded, its transaction not yet committed: the execution's venue reads
   * may start beside the commit (services/perp/check-reads.ts). Optional: absent, they start
   * with the execution.
   */
  perpAcceptArrived?(rfqId: string, order: unknown, takerAddress: string): void;
}

export const noHooks: ServiceHooks = { auctionScheduled: () => undefined, quoteSelected: () => undefined };

export interface ServiceDeps {
  db: Db;
  clock: Clock;
  ids: IdSource;
  secrets: SecretBox;
  /** Each maker's pseudonyms for takers (counterparty choice). */
  pseudonyms: TakerPseudonyms;
  /** Per-node cache of instruments' last trade prices, the price band's reference. */
  lastTrades: LastTrades;
  refdata: ReferenceData;
  settings: SettingsCache;
  auth: AuthSettings;
  hooks: ServiceHooks;
  /** Settlement adapters by mode (permit2, promised, xchange); absent modes settle nothing. */
  settlement: SettlementGateways;
  /** Per-node caches of the quote hot path. */
  quoteCaches: QuoteCaches;
  /** Group-commits quote writes (one round trip per batch). */
  quoteWriter: QuoteWriter;
  /** Set by the chain adapter when the node operates an xchange adapter; absent: xchange is 503. */
  xchange?: XchangeOperation;
  /** Set by the chain adapter: custody's transactions as the chain sees them (operator checks). */
  custodyChain?: CustodyChainReader;
  /** Set by the chain adapter: re-runs a chain log handler for one quarantined log (operator replay). */
  chainLogReplay?: ChainLogReplay;
  /** The perp venue, when the node has one; absent: perp instruments cannot be registered or traded. */
  venue?: PerpVenue;
}
