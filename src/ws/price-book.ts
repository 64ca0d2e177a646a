/**
 * Per-node top of book: every maker's best bid and ask per instrument, from the makers' ingest
 * sockets on this node (`applyLocal`) and on other nodes (`applyRemote`, via NodeBus), each until
 * it goes stale. On every change of the aggregate the hub pushes one `price` frame to the
 * instrument's subscribers here. Prices are indicative and not state: they never touch the outbox.
 *
 * Staleness is judged against the `staleAt` the ingest node stamped (arrival + priceStaleMs), so
 * every node drops a silent maker at the same instant; the ingest node re-sends an unchanged top
 * before remote copies would expire.
 */
import { formatAmount } from '../domain/money/index.ts';
import { PRICE_DECIMALS, sameTop, uncrossedTopOfBook, type Level, type MakerTop, type TimedTop, type TopOfBook } from '../domain/prices/index.ts';
import type { SessionHub } from './hub.ts';

interface Entry {
  /** The maker's top with its recency (`at`: the stale instant), as the uncrossing compares them. */
  top: TimedTop;
  staleAt: number;
  baseDecimals: number;
  /** The local ingest connection that wrote it; null for an entry learned from another node. */
  owner: object | null;
}

interface Published {
  top: MakerTop;
  staleAt: number;
}

export interface PriceBookOptions {
  hub: SessionHub;
  now: () => number;
  staleMs: () => number;
  /** Hands a maker's entry to the other nodes (NodeBus.publishPrice). */
  publish: (key: string, message: Record<string, unknown>) => void;
}

type WireLevel = [string, string] | null;

function toWire(level: Level | null): WireLevel {
  return level ? [level.price.toString(), level.size.toString()] : null;
}

function fromWire(value: unknown): Level | null {
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string') return null;
  if (!/^[1-9][0-9]{0,77}$/.test(value[0]) || !/^[1-9][0-9]{0,77}$/.test(value[1])) return null;
  return { price: BigInt(value[0]), size: BigInt(value[1]) };
}

export class PriceBook {
  private readonly options: PriceBookOptions;
  private readonly byInstrument = new Map<string, Map<string, Entry>>();
  private readonly current = new Map<string, { top: TopOfBook; setAside: number; frame: Record<string, unknown> }>();
  private readonly published = new Map<string, Published>();
  private sweeper: NodeJS.Timeout | null = null;
  /** Top-of-book changes pushed by this node (a benchmark and test counter). */
  ticks = 0;
  /** Times an instrument's consolidated book became crossed across makers and was uncrossed (`rfq_price_crossings_total`). */
  crossings = 0;

  constructor(options: PriceBookOptions) {
    this.options = options;
  }

  /** Drops stale entries every `intervalMs` (the stale deadline is honoured to that precision). */
  start(intervalMs = 100): void {
    this.sweeper = setInterval(() => this.sweep(), intervalMs);
    this.sweeper.unref();
  }

  stop(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = null;
  }

  /** The latest `price` frame of an instrument, if any maker has shown it since this node started. */
  currentFrame(instrumentId: string): Record<string, unknown> | null {
    return this.current.get(instrumentId)?.frame ?? null;
  }

  /** The mid of every instrument whose consolidated top has both sides (PRICE_DECIMALS scale). */
  midpoints(): Array<{ instrumentId: string; mid: bigint }> {
    const mids: Array<{ instrumentId: string; mid: bigint }> = [];
    for (const [instrumentId, { top }] of this.current) {
      if (top.bid && top.ask) mids.push({ instrumentId, mid: (top.bid.price + top.ask.price) / 2n });
    }
    return mids;
  }

  /** A validated ladder of `maker` that arrived on an ingest socket of this node. */
  applyLocal(maker: string, instrumentId: string, baseDecimals: number, top: MakerTop, owner: object): void {
    const staleMs = this.options.staleMs();
    const staleAt = this.options.now() + staleMs;
    this.put(instrumentId, maker, { top, staleAt, baseDecimals, owner });
    const key = `${maker}|${instrumentId}`;
    const last = this.published.get(key);
    // Re-send an unchanged top only when remote copies would otherwise near their stale instant.
    if (last && sameTop(last.top, top) && staleAt - last.staleAt < staleMs / 4) return;
    this.published.set(key, { top, staleAt });
    this.options.publish(key, { maker, instrumentId, baseDecimals, bid: toWire(top.bid), ask: toWire(top.ask), staleAt });
  }

  /** The ingest connection `owner` closed: its makers' prices stop counting at once, everywhere. */
  withdraw(maker: string, owner: object): void {
    for (const [instrumentId, entries] of this.byInstrument) {
      const entry = entries.get(maker);
      if (!entry || entry.owner !== owner) continue;
      entries.delete(maker);
      const key = `${maker}|${instrumentId}`;
      this.published.delete(key);
      this.options.publish(key, { maker, instrumentId, baseDecimals: entry.baseDecimals, bid: null, ask: null, staleAt: 0 });
      this.recompute(instrumentId);
    }
  }

  /** A maker's entry from another node; malformed messages are ignored. */
  applyRemote(message: Record<string, unknown>): void {
    const { maker, instrumentId, baseDecimals, staleAt } = message;
    if (typeof maker !== 'string' || typeof instrumentId !== 'string' || typeof staleAt !== 'number' || typeof baseDecimals !== 'number') return;
    const top = { bid: fromWire(message.bid), ask: fromWire(message.ask) };
    if (staleAt <= this.options.now() || (top.bid === null && top.ask === null)) {
      const entries = this.byInstrument.get(instrumentId);
      if (entries?.delete(maker)) this.recompute(instrumentId);
      return;
    }
    this.put(instrumentId, maker, { top, staleAt, baseDecimals, owner: null });
  }

  sweep(): void {
    const now = this.options.now();
    for (const [instrumentId, entries] of this.byInstrument) {
      let changed = false;
      for (const [maker, entry] of entries) {
        if (entry.staleAt > now) continue;
        entries.delete(maker);
        if (entry.owner) this.published.delete(`${maker}|${instrumentId}`);
        changed = true;
      }
      if (changed) this.recompute(instrumentId);
    }
  }

  private put(instrumentId: string, maker: string, arrived: Omit<Entry, 'top'> & { top: MakerTop }): void {
    // The stale instant is arrival plus one fixed delay on every node: it orders by recency.
    const entry: Entry = { ...arrived, top: { ...arrived.top, at: arrived.staleAt } };
    let entries = this.byInstrument.get(instrumentId);
    if (!entries) this.byInstrument.set(instrumentId, (entries = new Map()));
    entries.set(maker, entry);
    this.recompute(instrumentId);
  }

  /** Pushes a `price` frame when the aggregate differs from the last one pushed. */
  private recompute(instrumentId: string): void {
    const entries = this.byInstrument.get(instrumentId);
    const tops: TimedTop[] = [];
    let baseDecimals = 0;
    for (const entry of entries?.values() ?? []) {
      tops.push(entry.top);
      baseDecimals = entry.baseDecimals;
    }
    if (entries && entries.size === 0) this.byInstrument.delete(instrumentId);
    // Never crossed across makers: the older crossing side is set aside, and flagged (top-of-book.ts).
    const { top, setAside } = uncrossedTopOfBook(tops);
    const last = this.current.get(instrumentId);
    if (last ? sameTop(last.top, top) && last.setAside === setAside : top.bid === null && top.ask === null) return;
    if (setAside > 0 && (last?.setAside ?? 0) === 0) this.crossings++;
    const side = (level: Level | null) => (level ? { price: formatAmount(level.price, PRICE_DECIMALS), size: formatAmount(level.size, baseDecimals) } : null);
    const frame = { kind: 'price', instrumentId, bid: side(top.bid), ask: side(top.ask), ts: this.options.now(), ...(setAside > 0 ? { setAside } : {}) };
    this.current.set(instrumentId, { top, setAside, frame });
    this.ticks++;
    this.options.hub.deliverPrice(instrumentId, frame);
  }
}
