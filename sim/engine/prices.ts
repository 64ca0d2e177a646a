/**
 * Price ticks (DESIGN.md section 4): each maker streams indicative ladders into
 * `/v1/rfq/prices/ws` (its own ingest socket to its node, restored on reconnect) and every taker's
 * session holds the `prices` topic of each spot instrument. Checked as clients see them:
 * - every `price` frame is attributable: a non-null bid or ask is a best level some maker showed
 *   for that instrument, and the book is never crossed (the makers' bids all sit below their asks);
 * - after a tick, once every node is up, every taker's latest frame converges to the top of book
 *   of the makers' latest ladders (best price, size summed over the makers showing it).
 * Ladders do not go stale within a run (`SIM_PRICE_STALE_MS`): a node restart empties its book
 * and the makers' restored ladders refill it, so "latest ladders" is what every node must show.
 */
import { PriceIngestClient } from '../../src/client/price-ingest.ts';
import { formatAmount, parseAmount } from '../../src/domain/money/index.ts';
import type { Actor } from './actors.ts';
import type { Findings } from './findings.ts';
import { INSTRUMENTS, TOKENS, type InstrumentTerms } from './model.ts';
import type { Prng } from './prng.ts';
import type { SimStack } from './stack.ts';

/** Longer than any run: staleness is the unit tests' subject, convergence is the simulation's. */
export const SIM_PRICE_STALE_MS = 3_600_000;
const PRICE_DECIMALS = 18;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Level { price: bigint; size: bigint }
interface Top { bid: Level | null; ask: Level | null }
type Ladder = { bids: Array<[string, string]>; asks: Array<[string, string]> };

const same = (a: Level | null, b: Level | null) => (a === null ? b === null : b !== null && a.price === b.price && a.size === b.size);
const show = (t: Top) => JSON.stringify({ bid: t.bid && [String(t.bid.price), String(t.bid.size)], ask: t.ask && [String(t.ask.price), String(t.ask.size)] });

export class PriceFeeds {
  readonly #findings: Findings;
  readonly #stack: SimStack;
  readonly #feeds = new Map<string, PriceIngestClient>();
  /** Each maker's latest top per instrument. */
  readonly #latest = new Map<string, Map<string, Top>>();
  /** When each maker last published each instrument's ladder, and through which node. */
  readonly #publishedAt = new Map<string, { at: number; node: number }>();
  /** Every best bid and ask price any maker ever showed, per instrument. */
  readonly #shown = new Map<string, { bids: Set<bigint>; asks: Set<bigint> }>();
  /** Each taker's latest `price` frame per instrument. */
  readonly #seen = new Map<string, Map<string, Top>>();
  frames = 0;

  constructor(stack: SimStack, findings: Findings) {
    this.#stack = stack;
    this.#findings = findings;
  }

  /** Makers connect their ingest sockets; takers subscribe to every spot instrument's prices. */
  async connect(actors: Actor[]): Promise<void> {
    for (const actor of actors) {
      if (actor.role === 'maker') {
        const feed = new PriceIngestClient({ baseUrl: this.#stack.urlOf(actor.node), credentials: actor.client.credentials!, timestamps: actor.client.http.timestamps, backoff: { initialDelayMs: 50, maxDelayMs: 500 } });
        feed.on('frame', (frame) => {
          if ((frame as { kind?: string }).kind === 'error') this.#findings.add('priceIngest', `${actor.name}: ${JSON.stringify(frame)}`);
        });
        await feed.connect();
        this.#feeds.set(actor.name, feed);
        continue;
      }
      actor.watch.onPrice = (frame) => this.#frame(actor.name, frame);
      for (const instrument of INSTRUMENTS) await actor.watch.session.subscribe('prices', { instrumentId: instrument.id });
    }
  }

  close(): void {
    for (const feed of this.#feeds.values()) feed.close();
  }

  /** A maker publishes a fresh ladder (one to three levels a side, now and then a side empty). */
  tick(maker: Actor, rng: Prng): { instrumentId: string; ladder: Ladder } {
    const instrument = rng.pick(INSTRUMENTS);
    const side = (sign: 1 | -1): Array<[string, string]> => {
      if (rng.chance(0.1)) return [];
      const levels: Array<[string, string]> = [];
      // Prices in cents, sizes on the instrument's quantity grid; each level strictly worse.
      let cents = BigInt(Math.round(instrument.refPrice * 100 * (1 + sign * (0.0005 + rng.next() * 0.003))));
      for (let i = rng.int(1, 3); i > 0; i--) {
        const units = BigInt(Math.round((instrument.qtyRange[0] + rng.next() * (instrument.qtyRange[1] - instrument.qtyRange[0])) * 10 ** instrument.qtyDecimals));
        levels.push([formatAmount(cents, 2), formatAmount(units, instrument.qtyDecimals)]);
        cents += BigInt(sign) * BigInt(rng.int(1, 500));
      }
      return levels;
    };
    const ladder = { bids: side(-1), asks: side(1) };
    const top = { bid: this.#level(instrument, ladder.bids[0]), ask: this.#level(instrument, ladder.asks[0]) };
    const byMaker = this.#latest.get(instrument.id) ?? new Map<string, Top>();
    byMaker.set(maker.name, top);
    this.#latest.set(instrument.id, byMaker);
    const shown = this.#shown.get(instrument.id) ?? { bids: new Set<bigint>(), asks: new Set<bigint>() };
    if (top.bid) shown.bids.add(top.bid.price);
    if (top.ask) shown.asks.add(top.ask.price);
    this.#shown.set(instrument.id, shown);
    this.#publishedAt.set(`${maker.name}|${instrument.id}`, { at: Date.now(), node: maker.node });
    this.#feeds.get(maker.name)!.publish({ instrumentId: instrument.id, ...ladder });
    return { instrumentId: instrument.id, ladder };
  }

  /**
   * With every node up, waits until each taker's latest frame of every instrument shows the top of
   * book of the makers' latest ladders; a finding after `timeoutMs`. Not checked while a node is
   * down (its makers' prices linger on the other node until they come back). Returns the outcome.
   */
  async converged(actors: Actor[], timeoutMs: number): Promise<string> {
    if (this.#stack.running().length < this.#stack.nodeCount) return 'not checked: a node is down';
    // A node learns another node's maker's top when it changes (or nears staleness, an hour here):
    // a node started since a maker's last ladder on another node does not know it (its own node
    // gets it again, re-sent on reconnect). The book then differs by design, not by a fault.
    for (const [key, { at, node }] of this.#publishedAt) {
      for (let i = 0; i < this.#stack.nodeCount; i++) {
        if (i !== node && this.#stack.startedAt(i) > at) return `not checked: node ${i} restarted after ${key.split('|').join(' ')} was last published`;
      }
    }
    const started = Date.now();
    const takers = actors.filter((a) => a.role === 'taker');
    const stale = () => {
      const out: string[] = [];
      for (const [instrumentId, byMaker] of this.#latest) {
        const want = aggregate(byMaker.values());
        for (const taker of takers) {
          const got = this.#seen.get(taker.name)?.get(instrumentId) ?? { bid: null, ask: null };
          if (!same(got.bid, want.bid) || !same(got.ask, want.ask)) out.push(`${taker.name} ${instrumentId}: sees ${show(got)}, the makers' latest ladders make ${show(want)}`);
        }
      }
      return out;
    };
    for (;;) {
      const behind = stale();
      if (behind.length === 0) return `converged in ${Date.now() - started} ms`;
      if (Date.now() - started > timeoutMs) {
        this.#findings.add('priceTop', behind.join('; '));
        return 'not converged';
      }
      await sleep(50);
    }
  }

  #level(instrument: InstrumentTerms, entry: [string, string] | undefined): Level | null {
    if (!entry) return null;
    return { price: parseAmount(entry[0], PRICE_DECIMALS, { field: 'price' }), size: parseAmount(entry[1], TOKENS[instrument.base], { field: 'size' }) };
  }

  #frame(taker: string, frame: Record<string, unknown>): void {
    this.frames++;
    const instrumentId = String(frame['instrumentId']);
    const instrument = INSTRUMENTS.find((i) => i.id === instrumentId);
    if (!instrument) return this.#findings.add('priceFrame', `${taker}: price frame for ${instrumentId}, never subscribed`);
    const level = (raw: unknown): Level | null => {
      const l = raw as { price: string; size: string } | null;
      return l ? this.#level(instrument, [l.price, l.size]) : null;
    };
    const top = { bid: level(frame['bid']), ask: level(frame['ask']) };
    const shown = this.#shown.get(instrumentId);
    if (top.bid && !shown?.bids.has(top.bid.price)) this.#findings.add('priceFrame', `${taker} ${instrumentId}: bid ${top.bid.price} no maker ever showed as its best`);
    if (top.ask && !shown?.asks.has(top.ask.price)) this.#findings.add('priceFrame', `${taker} ${instrumentId}: ask ${top.ask.price} no maker ever showed as its best`);
    if (top.bid && top.ask && top.bid.price >= top.ask.price) this.#findings.add('priceFrame', `${taker} ${instrumentId}: crossed top ${show(top)}`);
    const byInstrument = this.#seen.get(taker) ?? new Map<string, Top>();
    byInstrument.set(instrumentId, top);
    this.#seen.set(taker, byInstrument);
  }
}

/** The best bid and ask over the makers' tops, each with the size summed at exactly that price. */
function aggregate(tops: Iterable<Top>): Top {
  let bid: Level | null = null;
  let ask: Level | null = null;
  for (const top of tops) {
    if (top.bid) bid = !bid || top.bid.price > bid.price ? { ...top.bid } : top.bid.price === bid.price ? { price: bid.price, size: bid.size + top.bid.size } : bid;
    if (top.ask) ask = !ask || top.ask.price < ask.price ? { ...top.ask } : top.ask.price === ask.price ? { price: ask.price, size: ask.size + top.ask.size } : ask;
  }
  return { bid, ask };
}
