/**
 * Cross-node signalling over PostgreSQL LISTEN/NOTIFY (an embedded PGlite store: within the process), always sent
 * after commit and outside any writing transaction: a notifying transaction holds PostgreSQL's
 * global notify lock through its commit, which would serialise every writer (migration 0003).
 *
 * - `rfq_outbox`: "new outbox rows committed"; other nodes wake their dispatcher at once instead of
 *   waiting for the poll. Debounced: while one NOTIFY is in flight, further commits fold into the
 *   next one, so a busy node sends at most one per round trip.
 * - `rfq_prices`: a maker's best bid/ask as seen by the node its ingest socket is on, so every
 *   node aggregates every maker. Coalesced per (maker, instrument): only the newest waits.
 *
 * Payloads name the sending node, which ignores its own. A lost notification costs latency only:
 * the dispatcher still polls, and price entries are re-sent before they go stale.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Store } from '../store/database.ts';

export const OUTBOX_CHANNEL = 'rfq_outbox';
export const PRICES_CHANNEL = 'rfq_prices';
/** NOTIFY payloads must stay under 8000 bytes; price messages are a few hundred. */
const MAX_PAYLOAD_BYTES = 7900;

export interface BusHandlers {
  outboxWake(): void;
  price(message: Record<string, unknown>): void;
}

export class NodeBus {
  readonly nodeId = randomUUID();
  private readonly store: Store;
  private logger: Logger | null = null;
  private readonly unlisten: Array<() => Promise<void>> = [];
  private outboxPending = false;
  private readonly prices = new Map<string, string>();
  private sending: Promise<void> | null = null;
  private stopped = false;
  /** Wake-ups received from other nodes (observability and the two-node test). */
  remoteWakes = 0;

  constructor(store: Store) {
    this.store = store;
  }

  async start(handlers: BusHandlers, logger: Logger): Promise<void> {
    this.logger = logger;
    this.unlisten.push(
      await this.store.listen(OUTBOX_CHANNEL, (payload) => {
        if (payload === this.nodeId) return;
        this.remoteWakes++;
        handlers.outboxWake();
      }),
    );
    this.unlisten.push(
      await this.store.listen(PRICES_CHANNEL, (payload) => {
        let message: unknown;
        try {
          message = JSON.parse(payload);
        } catch {
          return;
        }
        if (typeof message === 'object' && message !== null && (message as { node?: unknown }).node !== this.nodeId) {
          handlers.price(message as Record<string, unknown>);
        }
      }),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.sending;
    for (const unlisten of this.unlisten.splice(0)) await unlisten().catch(() => undefined);
  }

  /** Some transaction of this node committed outbox rows. */
  signalOutbox(): void {
    this.outboxPending = true;
    this.pump();
  }

  /** Sends `message` to the other nodes; a newer message under the same key replaces a waiting one. */
  publishPrice(key: string, message: Record<string, unknown>): void {
    const payload = JSON.stringify({ ...message, node: this.nodeId });
    if (payload.length > MAX_PAYLOAD_BYTES) return;
    this.prices.set(key, payload);
    this.pump();
  }

  private pump(): void {
    if (this.sending || this.stopped) return;
    this.sending = this.drain().finally(() => {
      this.sending = null;
    });
  }

  /** One statement per round: every waiting notification at once. */
  private async drain(): Promise<void> {
    // Off the committing call's stack: the commit's caller continues first.
    await new Promise((resolve) => setImmediate(resolve));
    while (!this.stopped && (this.outboxPending || this.prices.size > 0)) {
      const messages: Array<[string, string]> = [];
      if (this.outboxPending) {
        messages.push([OUTBOX_CHANNEL, this.nodeId]);
        this.outboxPending = false;
      }
      for (const payload of this.prices.values()) messages.push([PRICES_CHANNEL, payload]);
      this.prices.clear();
      try {
        await this.store.notify(messages);
      } catch (error) {
        this.logger?.warn({ err: error }, 'cross-node notify failed (nodes fall back to polling)');
        return;
      }
    }
  }
}
