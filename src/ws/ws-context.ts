/**
 * What the WebSocket adapter is given by the runtime (src/runtime/node-context.ts): the service
 * dependencies, authentication, the store, its limits, and the node's hub, price book and bus.
 */
import type { AuthenticateDeps } from '../services/auth/authenticate-request.ts';
import type { ServiceDeps } from '../services/deps.ts';
import type { Store } from '../store/database.ts';
import type { SessionHub } from './hub.ts';
import type { NodeBus } from './node-bus.ts';
import type { PriceBook } from './price-book.ts';
import type { SessionPresence } from './presence.ts';

export interface WsContext {
  service: ServiceDeps;
  authentication: AuthenticateDeps;
  store: Store;
  /**
   * Limits, read per connection, so a replaced value applies to the next connection. Defaults
   * and validation: `WS_DEFAULTS` and the RFQ_WS_* settings in src/runtime/config.ts.
   */
  ws: WsSettings;
  /** The node's sessions, its top of book and its cross-node signalling: one of each per node. */
  hub: SessionHub;
  book: PriceBook;
  bus: NodeBus;
  /** Maker sessions in the store, the node's heartbeat and the cancel-on-disconnect sweep. */
  presence: SessionPresence;
}

/** WebSocket limits (the RFQ_WS_* settings of src/runtime/config.ts, same names and units). */
export interface WsSettings {
  /** No valid `auth` frame within this: AUTH_REQUIRED, close 4001 (spec: 5 s default). */
  handshakeDeadlineMs: number;
  /** Open, not yet authenticated connections per source address (both socket paths). */
  maxUnauthenticatedPerSource: number;
  /** Authenticated sessions per account on this node (both socket paths together). */
  maxSessionsPerAccount: number;
  /** Inbound frames per second per connection (token bucket, burst of one second's worth). */
  inboundFramesPerSec: number;
  /** Server `ping` (application frame on /v1/rfq/ws, native ping on the ingest socket). */
  pingIntervalMs: number;
  /** Bytes queued for one socket beyond which it is closed as a slow consumer (4009). */
  sendBufferBytes: number;
  /** A maker's ladder stops counting toward top of book this long after it arrived. */
  priceStaleMs: number;
  /** Outbox rows older than this are pruned; `fromSeq` replay reaches back this far. */
  outboxRetentionMs: number;
  /**
   * How often every session's key and maker standing are re-read from the store (DESIGN.md
   * section 11 bounds the reaction at 1 s, so at most 1000).
   */
  sessionAuditMs: number;
  /**
   * A node whose heartbeat is older than this is taken for dead by the others: its sessions end
   * and cancel on disconnect applies to them (DESIGN.md section 11; 5 s by default).
   */
  heartbeatTimeoutMs: number;
}
