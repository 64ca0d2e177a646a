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
 *
 * Outbox wake-ups go only to a cluster: a node that has heard no other node for `PEER_TTL_MS`
 * sends none (on a single node they were one statement per committed batch, woke nobody, and were
 * a third of the statements per re-quote). Every node announces itself on the outbox
 * channel when it starts and every `ANNOUNCE_MS`, and answers a node it has not heard from before
 * at once, so two nodes know of each other within a round trip of the second one starting; before
 * that, and after a peer's silence, the other node's dispatcher poll still finds every row.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Store } from '../store/database.ts';

export const OUTBOX_CHANNEL = 'rfq_outbox';
export const PRICES_CHANNEL = 'rfq_prices';
/** A node heard from within this long is taken to be alive; each announces itself every `ANNOUNCE_MS`. */
const PEER_TTL_MS = 10_000;
const ANNOUNCE_MS = 3_000;
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
  /** When another node was last heard (wall clock: liveness, not business time). */
  private peerHeardAt = Number.NEGATIVE_INFINITY;
  private announcePending = false;
  private announceTimer: NodeJS.Timeout | null = null;
  /** Wake-ups received from other nodes (observability and the two-node test). */
  remoteWakes = 0;
  /** Outbox wake-ups this node sent (announcements included). */
  wakesSent = 0;

  constructor(store: Store) {
    this.store = store;
  }

  async start(handlers: BusHandlers, logger: Logger): Promise<void> {
    this.logger = logger;
    this.unlisten.push(
      await this.store.listen(OUTBOX_CHANNEL, (payload) => {
        if (payload === this.nodeId) return;
        this.heardPeer();
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
          this.heardPeer();
          handlers.price(message as Record<string, unknown>);
        }
      }),
    );
    this.announce();
    this.announceTimer = setInterval(() => this.announce(), ANNOUNCE_MS);
    this.announceTimer.unref();
  }

  /** Whether another node was heard recently enough to be woken. */
  get hasPeers(): boolean {
    return Date.now() - this.peerHeardAt < PEER_TTL_MS;
  }

  /** A node not heard from before (or after a silence) is answered at once, so it learns of this one. */
  private heardPeer(): void {
    const known = this.hasPeers;
    this.peerHeardAt = Date.now();
    if (!known) this.announce();
  }

  private announce(): void {
    this.announcePending = true;
    this.pump();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.announceTimer) clearInterval(this.announceTimer);
    this.announceTimer = null;
    await this.sending;
    for (const unlisten of this.unlisten.splice(0)) await unlisten().catch(() => undefined);
  }

  /** Some transaction of this node committed outbox rows. */
  signalOutbox(): void {
    if (!this.hasPeers) return;
    this.outboxPending = true;
    this.pump();
  }

  /**
   * Resolves once every notification waiting at the call has been sent (or failed): what the
   * calls before this one asked to send is counted in `wakesSent` by then (tests).
   */
  async sent(): Promise<void> {
    while (this.sending) await this.sending;
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
    while (!this.stopped && (this.outboxPending || this.announcePending || this.prices.size > 0)) {
      const messages: Array<[string, string]> = [];
      if (this.outboxPending || this.announcePending) {
        messages.push([OUTBOX_CHANNEL, this.nodeId]);
        this.wakesSent++;
        this.outboxPending = false;
        this.announcePending = false;
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
