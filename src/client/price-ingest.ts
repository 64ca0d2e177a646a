/**
 * A maker's price feed into `/v1/rfq/prices/ws` (DESIGN.md section 4): the same signed `auth`
 * frame as `/v1/rfq/ws` (signing path `/v1/rfq/prices/ws`; a maker credential), then `ladder`
 * frames. This socket has no application keepalive, so liveness is checked with WebSocket
 * control pings. After a reconnect the latest ladder of each instrument is sent again with a
 * fresh `ts` (the server ignores ladders older than its staleness limit anyway).
 *
 * Not exercised by tests yet: the server side of this socket is being built. It assumes the
 * server answers a good `auth` with `health` as `/v1/rfq/ws` does (spec "WebSocket authentication").
 *
 *   const feed = new PriceIngestClient({ baseUrl, credentials });
 *   await feed.connect();
 *   feed.publish({ instrumentId: 'ETH-USDC-SPOT', bids: [['2999.5', '2']], asks: [['3000.5', '1.5']] });
 *   feed.on('frame', (f) => { if (f.kind === 'error') console.error(f) });
 */
import { PRICES_WS_PATH } from './frames.ts';
import { ReconnectingSocket, type SocketOptions } from './reconnecting-socket.ts';

export interface Ladder {
  instrumentId: string;
  /** `[price, size]` decimal strings, best first. */
  bids: Array<[string, string]>;
  asks: Array<[string, string]>;
  /** Unix milliseconds; defaults to now. */
  ts?: number;
}

export class PriceIngestClient extends ReconnectingSocket {
  readonly #latest = new Map<string, Ladder>();
  readonly #now: () => number;

  constructor(options: SocketOptions & { now?: () => number }) {
    super(options, PRICES_WS_PATH, 'native');
    this.#now = options.now ?? Date.now;
  }

  /** Sends the ladder now if connected (returns whether it was sent) and keeps it for reconnects. */
  publish(ladder: Ladder): boolean {
    this.#latest.set(ladder.instrumentId, ladder);
    return this.send({ kind: 'ladder', instrumentId: ladder.instrumentId, bids: ladder.bids, asks: ladder.asks, ts: ladder.ts ?? this.#now() });
  }

  protected restore(): void {
    for (const ladder of this.#latest.values()) this.send({ kind: 'ladder', instrumentId: ladder.instrumentId, bids: ladder.bids, asks: ladder.asks, ts: this.#now() });
  }

  protected forgetSocket(): void {}
}
