/**
 * The factory wrapper of a maker, cached per node. A wrapper never changes once deployed, so a
 * found one is cached for good. "No wrapper" can stop being true (the maker may deploy one), so it
 * is asked at a block and cached as "none up to block N": a flood of forged `RfqSettled` logs
 * naming the same maker costs one call per scan, and a wrapper deployed later is still found.
 * A question already on its way at the same or a later block is shared, not asked again: the
 * follower and the deposit head scanner read the same new block at about the same moment.
 */
import { getAddress, zeroAddress, type Address } from 'viem';
import { rfqMakerWrapperFactoryAbi } from '../artifacts/index.ts';
import type { ChainContext } from '../chain-context.ts';

/** A call on its way, asked at `atBlock`. */
interface InFlight { atBlock: number; answer: Promise<Address | null> }
interface Known { wrappers: Map<Address, Address>; noneUpTo: Map<Address, number>; asking: Map<Address, InFlight> }
const cache = new WeakMap<ChainContext, Known>();
/** Bound on remembered negative answers (forged makers are free to invent). */
const MAX_NEGATIVE_ENTRIES = 10_000;

/** Calls of the factory made so far (tests bound the RPC cost of forged logs with it). */
export const wrapperOfCalls = { count: 0 };

export async function wrapperOfMaker(chain: ChainContext, maker: Address, atBlock?: number): Promise<Address | null> {
  let known = cache.get(chain);
  if (!known) cache.set(chain, (known = { wrappers: new Map(), noneUpTo: new Map(), asking: new Map() }));
  const hit = known.wrappers.get(maker);
  if (hit) return hit;
  // A question at "latest" (a maker registering) is never answered from a negative cache nor
  // shared: a call already sent may predate the wrapper the maker has just deployed.
  if (atBlock === undefined) return askWrapperOf(chain, known, maker, undefined);
  if (atBlock <= (known.noneUpTo.get(maker) ?? -1)) return null;
  // An answer at a later block serves an earlier one: a wrapper is never removed, and none emits
  // before it exists.
  const pending = known.asking.get(maker);
  if (pending && pending.atBlock >= atBlock) return pending.answer;
  const entry: InFlight = { atBlock, answer: askWrapperOf(chain, known, maker, atBlock) };
  known.asking.set(maker, entry);
  try {
    return await entry.answer;
  } finally {
    if (known.asking.get(maker) === entry) known.asking.delete(maker);
  }
}

async function askWrapperOf(chain: ChainContext, known: Known, maker: Address, atBlock: number | undefined): Promise<Address | null> {
  wrapperOfCalls.count++;
  const wrapper = await chain.custody.publicClient.readContract({
    address: chain.settings.wrapperFactoryAddress,
    abi: rfqMakerWrapperFactoryAbi,
    functionName: 'wrapperOf',
    args: [maker],
    ...(atBlock !== undefined ? { blockNumber: BigInt(atBlock) } : {}),
  });
  if (wrapper === zeroAddress) {
    if (atBlock !== undefined) {
      if (known.noneUpTo.size >= MAX_NEGATIVE_ENTRIES) known.noneUpTo.clear();
      known.noneUpTo.set(maker, Math.max(atBlock, known.noneUpTo.get(maker) ?? 0));
    }
    return null;
  }
  known.wrappers.set(maker, getAddress(wrapper));
  return getAddress(wrapper);
}
