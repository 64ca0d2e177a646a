/**
 * One account's pushes from the venue's WebSocket: `userFills`, `orderUpdates` and
 * `userNonFundingLedgerUpdates`, through the SDK's `WebSocketTransport` (reconnecting, with its
 * keep-alive ping). A push costs no request weight, so while the stream is live nothing needs to
 * poll. It is live once the socket is open and both snapshot channels have sent their snapshot
 * since; anything the account did while it was not live is for the caller to read over REST (its
 * `live` handler runs at every (re)connection for that catch-up).
 *
 * The venue lets one IP subscribe to 10 users at most, so this is for the service's own
 * accounts (the `/v0` omnibus), not for every taker.
 */
import { WebSocketTransport } from '@nktkas/hyperliquid';
import { orderUpdates, userFills, userNonFundingLedgerUpdates } from '@nktkas/hyperliquid/api/subscription';
import type { Logger } from 'pino';

/** A fill as the venue pushes it (the same shape `userFills` answers). */
export interface PushedFill { coin: string; px: string; sz: string; side: string; time: number; hash: string; oid: number; tid: number; fee: string; feeToken: string; cloid?: string }
/** An order's status as `orderUpdates` pushes it. */
export interface PushedOrderUpdate { order: { oid: number; cloid?: string | null; sz: string; origSz: string; coin: string }; status: string; statusTimestamp: number }
/** A ledger row as `userNonFundingLedgerUpdates` pushes it (as its REST reply writes it). */
export interface PushedLedgerUpdate { time: number; hash: string; delta: { type: string } & Record<string, unknown> }

export interface VenueStreamHandlers {
  fills(fills: PushedFill[], snapshot: boolean): void;
  orderUpdates(updates: PushedOrderUpdate[]): void;
  ledger(updates: PushedLedgerUpdate[], snapshot: boolean): void;
  /** Every subscription is answered again after a (re)connection: read by REST what may have been missed. */
  live(): void;
  /** The socket dropped: nothing is pushed until the next `live`. */
  down(): void;
}

export interface VenueStreamOptions {
  /** The venue's WebSocket URL (`venueSocketUrl`). */
  url: string;
  user: string;
  logger: Logger;
  /** A subscription not answered within this long is retried on a new connection. */
  subscribeTimeoutMs?: number;
}

/** The venue's WebSocket for its HTTP API URL: `https://api.hyperliquid.xyz` -> `wss://api.hyperliquid.xyz/ws`. */
export function venueSocketUrl(apiUrl: string): string {
  const url = new URL(apiUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/ws`;
  return url.toString();
}

const RETRY_MS = 5_000;

export class VenueStream {
  readonly #o: VenueStreamOptions;
  #transport: WebSocketTransport | null = null;
  #handlers: VenueStreamHandlers | null = null;
  #stopped = false;
  #live = false;
  #snapshots = new Set<string>();
  #retry: NodeJS.Timeout | null = null;

  constructor(options: VenueStreamOptions) {
    this.#o = options;
  }

  get live(): boolean {
    return this.#live;
  }

  /** Connects in the background (never throws: a venue that is down is retried). */
  start(handlers: VenueStreamHandlers): void {
    this.#handlers = handlers;
    void this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#retry) clearTimeout(this.#retry);
    const transport = this.#transport;
    this.#transport = null;
    this.#setDown();
    if (transport) await closeTransport(transport);
  }

  async #connect(): Promise<void> {
    if (this.#stopped) return;
    const user = this.#o.user.toLowerCase() as `0x${string}`;
    // Reconnects for as long as the service runs, backing off to 10 s between attempts; the SDK
    // subscribes again on each new socket, and each user channel starts with a snapshot.
    const transport = new WebSocketTransport({ url: this.#o.url, timeout: this.#o.subscribeTimeoutMs ?? 10_000, reconnect: { maxRetries: Number.MAX_SAFE_INTEGER }, resubscribe: true });
    this.#transport = transport;
    // The socket's own events (its type map lacks them without the DOM library's types).
    const socket = transport.socket as unknown as EventTarget;
    socket.addEventListener('open', () => this.#snapshots.clear());
    socket.addEventListener('close', () => this.#setDown());
    const h = this.#handlers!;
    try {
      await Promise.all([
        // A snapshot is handed over before it can make the stream live.
        userFills({ transport }, { user }, (event) => {
          h.fills(event.fills as unknown as PushedFill[], event.isSnapshot === true);
          if (event.isSnapshot) this.#snapshot('fills');
        }),
        userNonFundingLedgerUpdates({ transport }, { user }, (event) => {
          h.ledger(event.nonFundingLedgerUpdates as unknown as PushedLedgerUpdate[], event.isSnapshot === true);
          if (event.isSnapshot) this.#snapshot('ledger');
        }),
        orderUpdates({ transport }, { user }, (event) => h.orderUpdates(event as unknown as PushedOrderUpdate[])),
      ]);
    } catch (error) {
      // A subscription refused or not answered: this connection is dropped and a new one tried
      // (the SDK keeps a failed subscription's answer, so retrying on the same one cannot work).
      this.#o.logger.warn({ err: error, url: this.#o.url }, 'venue WebSocket subscriptions failed; retrying');
      this.#transport = null;
      this.#setDown();
      await closeTransport(transport);
      if (!this.#stopped) this.#retry = setTimeout(() => void this.#connect(), RETRY_MS);
    }
  }

  #snapshot(channel: string): void {
    this.#snapshots.add(channel);
    if (this.#live || this.#snapshots.size < 2) return;
    this.#live = true;
    this.#handlers?.live();
  }

  #setDown(): void {
    if (!this.#live) return;
    this.#live = false;
    this.#handlers?.down();
  }
}

/**
 * Ends a transport for good. The SDK's `close()` resolves at once when the socket is between
 * reconnection attempts (already CLOSED) and leaves its reconnection loop running, so the
 * reconnecting socket is closed permanently first.
 */
async function closeTransport(transport: WebSocketTransport): Promise<void> {
  transport.socket.close(1000, 'stopping', true);
  await transport.close().catch(() => undefined);
}
