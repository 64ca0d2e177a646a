/**
 * The node-local registry of WebSocket sessions that the outbox dispatcher and the price book
 * deliver into: authenticated sessions by account, openRfqs and prices subscribers by instrument,
 * and the per-source count of connections still in their handshake. One hub per node, built by
 * the runtime and handed to the route plugin and the dispatcher (WsContext.hub).
 */

/** What the hub needs from a session. */
export interface HubSession {
  readonly accountId: string;
  /** One committed frame of this account (account topics) or a broadcast openRfqs frame. */
  deliver(topic: string, frame: Record<string, unknown>): void;
  /** A `price` frame of an instrument this session subscribes to, encoded once per tick for all. */
  deliverPrice?(instrumentId: string, data: Buffer): void;
}

/** An authenticated connection of either socket path, as the session auditor sees it. */
export interface AuditedSession {
  readonly accountId: string;
  readonly accessKey: string;
  /** The key was revoked or expired: AUTH_REQUIRED, close 4001. */
  endForCredential(reason: string): void;
  /** The account is no longer an active, unsuspended maker: drop what needs one. */
  makerLost(reason: string): void;
}

class Index<K, V> {
  private readonly map = new Map<K, Set<V>>();

  add(key: K, value: V): void {
    let set = this.map.get(key);
    if (!set) this.map.set(key, (set = new Set()));
    set.add(value);
  }

  delete(key: K, value: V): void {
    const set = this.map.get(key);
    if (!set) return;
    set.delete(value);
    // Drop empty sets so a long-lived node does not keep one entry per key ever seen.
    if (set.size === 0) this.map.delete(key);
  }

  get(key: K): ReadonlySet<V> | undefined {
    return this.map.get(key);
  }

  keys(): K[] {
    return [...this.map.keys()];
  }

  get size(): number {
    return this.map.size;
  }
}

/** Counts per key under a cap: unauthenticated connections per source, ingest sessions per account. */
export class KeyedCounter {
  private readonly counts = new Map<string, number>();

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  tryAcquire(source: string, max: number): boolean {
    const n = this.counts.get(source) ?? 0;
    if (n >= max) return false;
    this.counts.set(source, n + 1);
    return true;
  }

  release(source: string): void {
    const n = (this.counts.get(source) ?? 0) - 1;
    if (n <= 0) this.counts.delete(source);
    else this.counts.set(source, n);
  }
}

export class SessionHub {
  /** Connections per source address still in their handshake (both socket paths). */
  readonly unauthenticated = new KeyedCounter();
  /** Price ingest sessions per account (capped apart from /v1/rfq/ws sessions). */
  readonly ingestSessions = new KeyedCounter();
  /** Every authenticated connection (both paths), checked against the store by the auditor. */
  readonly audited = new Set<AuditedSession>();
  private readonly byAccount = new Index<string, HubSession>();
  private readonly openRfqsByInstrument = new Index<string, HubSession>();
  private readonly pricesByInstrument = new Index<string, HubSession>();
  /** Price frames skipped because a newer tick superseded them before the socket drained. */
  pricesConflated = 0;

  add(session: HubSession): void {
    this.byAccount.add(session.accountId, session);
  }

  remove(session: HubSession, instruments: { openRfqs: Iterable<string>; prices: Iterable<string> }): void {
    this.byAccount.delete(session.accountId, session);
    for (const id of instruments.openRfqs) this.openRfqsByInstrument.delete(id, session);
    for (const id of instruments.prices) this.pricesByInstrument.delete(id, session);
  }

  sessionsOf(accountId: string): number {
    return this.byAccount.get(accountId)?.size ?? 0;
  }

  watchOpenRfqs(session: HubSession, instrumentId: string): void {
    this.openRfqsByInstrument.add(instrumentId, session);
  }

  unwatchOpenRfqs(session: HubSession, instrumentId: string): void {
    this.openRfqsByInstrument.delete(instrumentId, session);
  }

  watchPrices(session: HubSession, instrumentId: string): void {
    this.pricesByInstrument.add(instrumentId, session);
  }

  unwatchPrices(session: HubSession, instrumentId: string): void {
    this.pricesByInstrument.delete(instrumentId, session);
  }

  /** Instruments with at least one openRfqs subscriber on this node. */
  openRfqsInstruments(): string[] {
    return this.openRfqsByInstrument.keys();
  }

  /** A broadcast `openRfqs` frame to every session holding that instrument's subscription. */
  deliverOpenRfq(instrumentId: string, frame: Record<string, unknown>): void {
    for (const session of this.openRfqsByInstrument.get(instrumentId) ?? []) session.deliver('openRfqs', frame);
  }

  /** A top-of-book change: serialised and UTF-8 encoded once, handed to every subscriber of the instrument. */
  deliverPrice(instrumentId: string, frame: Record<string, unknown>): void {
    const sessions = this.pricesByInstrument.get(instrumentId);
    if (!sessions) return;
    const data = Buffer.from(JSON.stringify(frame));
    for (const session of sessions) session.deliverPrice?.(instrumentId, data);
  }

  /** Sessions filter by their own subscriptions; the hub only routes by account. */
  deliver(accountId: string, topic: string, frame: Record<string, unknown>): void {
    for (const session of this.byAccount.get(accountId) ?? []) session.deliver(topic, frame);
  }

  /** Accounts with at least one session on this node. */
  accounts(): string[] {
    return this.byAccount.keys();
  }

  accountCount(): number {
    return this.byAccount.size;
  }

  sessionCount(): number {
    let n = 0;
    for (const account of this.byAccount.keys()) n += this.byAccount.get(account)?.size ?? 0;
    return n;
  }
}
