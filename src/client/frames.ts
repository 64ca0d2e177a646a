/**
 * Frames of `/v1/rfq/ws` and `/v1/rfq/prices/ws` as a client sees them (spec "Events", DESIGN.md
 * section 4). Server frames are flat: `kind` plus the object's own fields, except
 * `balanceSnapshot`, which carries `balances`. The set of kinds is open: a client must tolerate
 * a kind it does not know (it arrives typed as `UnknownFrame`).
 */
import type { Balance, MakerQuote, OpenRfq, Quote, Rfq } from './types.ts';

export const WS_PATH = '/v1/rfq/ws';
export const PRICES_WS_PATH = '/v1/rfq/prices/ws';

/** Close codes of DESIGN.md section 4 (4002: keepalive, chosen by the server; see docs/decisions/0015-websocket-sessions.md). */
export const CloseCode = {
  authFailed: 4001,
  keepaliveTimeout: 4002,
  connectionCap: 4008,
  rateLimited: 4029,
  shutdown: 1001,
} as const;

export type AccountTopic = 'balances' | 'rfqStatus' | 'quotes' | 'quoteStatus';
export type Topic = AccountTopic | 'prices' | 'openRfqs';
/** Topics whose frames carry a per-(account, topic) `seq` that `fromSeq` can resume from. */
export const ACCOUNT_TOPICS: readonly AccountTopic[] = ['balances', 'rfqStatus', 'quotes', 'quoteStatus'];

/** Added to every account-topic frame; `resync` marks a baseline sent because `fromSeq` could not be replayed. */
export interface Sequenced { seq?: number; resync?: boolean }

export interface PriceLevel { price: string; size: string }

/** `cancelOnDisconnect`: whether this session holds cancel on disconnect (asked for in `auth`, maker credentials only). */
export type HealthFrame = { kind: 'health'; userId: string; isMaker: boolean; cancelOnDisconnect?: boolean };
export type SubscribedFrame = { kind: 'subscribed'; topic: Topic; instrumentId?: string };
export type UnsubscribedFrame = { kind: 'unsubscribed'; topic: Topic; instrumentId?: string };
export type ErrorFrame = { kind: 'error'; code: string; message: string };
export type PriceFrame = { kind: 'price'; instrumentId: string; bid: PriceLevel | null; ask: PriceLevel | null; ts: number };
export type BalanceSnapshotFrame = { kind: 'balanceSnapshot'; balances: Balance[] } & Sequenced;
export type RfqStatusFrame = { kind: 'rfqStatus' } & Rfq & Sequenced;
export type QuoteUpdateFrame = { kind: 'quoteUpdate' } & Quote & Sequenced;
export type QuoteStatusFrame = { kind: 'quoteStatus' } & MakerQuote & Sequenced;
export type OpenRfqFrame = { kind: 'rfq' } & OpenRfq;
/** On `quoteStatus`: the maker's market-maker protection on an instrument tripped; its open quotes there are being cancelled. */
export type ProtectionFrame = { kind: 'protection'; instrumentId: string; triggeredAt: number; reason: 'maxSelectedQuotes' | 'maxSelectedNotional' } & Sequenced;
export type PingFrame = { kind: 'ping' };
export type PongFrame = { kind: 'pong' };
/** A kind this client does not know yet (the set is open). */
export type UnknownFrame = { kind: string; [field: string]: unknown };

export type ServerFrame =
  | HealthFrame | SubscribedFrame | UnsubscribedFrame | ErrorFrame | PriceFrame | BalanceSnapshotFrame
  | RfqStatusFrame | QuoteUpdateFrame | QuoteStatusFrame | ProtectionFrame | OpenRfqFrame | PingFrame | PongFrame;

export type ClientFrame =
  | { kind: 'auth'; accessKey: string; signedAt: number; signature: string; cancelOnDisconnect?: boolean }
  | { kind: 'subscribe'; topic: Topic; instrumentId?: string; fromSeq?: number }
  | { kind: 'unsubscribe'; topic: Topic; instrumentId?: string }
  | { kind: 'ping' }
  | { kind: 'pong' };

/** Price ingest (`/v1/rfq/prices/ws`): entries are `[price, size]` decimal strings, best first. */
export interface LadderFrame { kind: 'ladder'; instrumentId: string; bids: Array<[string, string]>; asks: Array<[string, string]>; ts: number }

/** The account topic a frame belongs to, for `seq` bookkeeping; null for other frames. */
export function accountTopicOf(kind: string): AccountTopic | null {
  switch (kind) {
    case 'balanceSnapshot': return 'balances';
    case 'rfqStatus': return 'rfqStatus';
    case 'quoteUpdate': return 'quotes';
    case 'quoteStatus':
    case 'protection': return 'quoteStatus';
    default: return null;
  }
}

/** Parses a text frame; null when it is not a JSON object with a string `kind`. */
export function parseServerFrame(raw: string): ServerFrame | UnknownFrame | null {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return typeof (value as { kind?: unknown }).kind === 'string' ? (value as UnknownFrame) : null;
}
