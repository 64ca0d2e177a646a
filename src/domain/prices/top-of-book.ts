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
