/**
 * Top of book across makers: the highest bid and the lowest ask any maker shows, each with the
 * size summed over every maker at exactly that price. Attributed to nobody by construction.
 */
import type { Level, MakerTop } from './ladder.ts';

export interface TopOfBook {
  bid: Level | null;
  ask: Level | null;
}

function better(side: 'bid' | 'ask', a: bigint, b: bigint): boolean {
  return side === 'bid' ? a > b : a < b;
}

function bestOf(tops: Iterable<MakerTop>, side: 'bid' | 'ask'): Level | null {
  let best: Level | null = null;
  for (const top of tops) {
    const level = top[side];
    if (!level) continue;
    if (!best || better(side, level.price, best.price)) best = { price: level.price, size: level.size };
    else if (level.price === best.price) best = { price: best.price, size: best.size + level.size };
  }
  return best;
}

export function aggregateTopOfBook(tops: Iterable<MakerTop>): TopOfBook {
  const list = [...tops];
  return { bid: bestOf(list, 'bid'), ask: bestOf(list, 'ask') };
}

export function sameTop(a: TopOfBook, b: TopOfBook): boolean {
  const same = (x: Level | null, y: Level | null) => (x === null ? y === null : y !== null && x.price === y.price && x.size === y.size);
  return same(a.bid, b.bid) && same(a.ask, b.ask);
}

/** A maker's top with its recency: larger `at` is newer (the price book uses the entry's stale instant). */
export interface TimedTop extends MakerTop {
  at: number;
}

/**
 * The consolidated top of book, never crossed. Each maker's own book is uncrossed (ladder.ts), but
 * two makers can cross each other (one's bid at or above another's ask). The rule: the side whose
 * newest contribution at the crossing price is older is set aside, every maker's at that price
 * (both sides when equally recent), and the book is aggregated again until it is not crossed. The
 * newer price is the better information: the older one is what the market has moved away from.
 * A set-aside side is not shown until its maker sends a ladder that no longer crosses; `setAside`
 * counts the maker sides set aside, so the crossing is flagged rather than hidden.
 */
export function uncrossedTopOfBook(tops: readonly TimedTop[]): { top: TopOfBook; setAside: number } {
  const first = aggregateTopOfBook(tops);
  // The usual case, on every tick: nothing crosses, nothing is copied.
  if (!first.bid || !first.ask || first.bid.price < first.ask.price) return { top: first, setAside: 0 };
  const live = tops.map((t) => ({ ...t }));
  let setAside = 0;
  for (;;) {
    const top = aggregateTopOfBook(live);
    if (!top.bid || !top.ask || top.bid.price < top.ask.price) return { top, setAside };
    const at = (side: 'bid' | 'ask') => Math.max(...live.filter((t) => t[side]?.price === top[side]!.price).map((t) => t.at));
    const bidAt = at('bid');
    const askAt = at('ask');
    for (const side of ['bid', 'ask'] as const) {
      if (side === 'bid' ? bidAt > askAt : askAt > bidAt) continue;
      const crossing = top[side]!.price;
      for (const t of live) {
        if (t[side]?.price !== crossing) continue;
        t[side] = null;
        setAside++;
      }
    }
  }
}
