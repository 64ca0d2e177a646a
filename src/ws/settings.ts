/**
 * WebSocket limits (the RFQ_WS_* settings of src/runtime/config.ts, same names and units).
 * Read from the context per connection, so an operator value applies to the next connection.
 */
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
}

export const defaultWsSettings: Readonly<WsSettings> = Object.freeze({
  handshakeDeadlineMs: 5000,
  maxUnauthenticatedPerSource: 32,
  maxSessionsPerAccount: 16,
  inboundFramesPerSec: 50,
  pingIntervalMs: 15_000,
  sendBufferBytes: 1 << 20,
  priceStaleMs: 5000,
  outboxRetentionMs: 24 * 3600_000,
  sessionAuditMs: 250,
});
