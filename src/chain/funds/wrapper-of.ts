/**
 * The factory wrapper of a maker, cached per node. A wrapper never changes once deployed, so a
 * found one is cached for good. "No wrapper" can stop being true (the maker may deploy one), so it
 * is asked at a block and cached as "none up to block N": a flood of forged `RfqSettled` logs
 * naming the same maker costs one call per scan, and a wrapper deployed later is still found.
 */
import { getAddress, zeroAddress, type Address } from 'viem';
import { rfqMakerWrapperFactoryAbi } from '../artifacts/index.ts';
import type { ChainContext } from '../chain-context.ts';

interface Known { wrappers: Map<Address, Address>; noneUpTo: Map<Address, number> }
const cache = new WeakMap<ChainContext, Known>();
/** Bound on remembered negative answers (forged makers are free to invent). */
const MAX_NEGATIVE_ENTRIES = 10_000;

/** Calls of the factory made so far (tests bound the RPC cost of forged logs with it). */
export const wrapperOfCalls = { count: 0 };

export async function wrapperOfMaker(chain: ChainContext, maker: Address, atBlock?: number): Promise<Address | null> {
  let known = cache.get(chain);
  if (!known) cache.set(chain, (known = { wrappers: new Map(), noneUpTo: new Map() }));
  const hit = known.wrappers.get(maker);
  if (hit) return hit;
  const noneUpTo = known.noneUpTo.get(maker);
  if (atBlock !== undefined && noneUpTo !== undefined && atBlock <= noneUpTo) return null;
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
      known.noneUpTo.set(maker, Math.max(atBlock, noneUpTo ?? 0));
    }
    return null;
  }
  known.wrappers.set(maker, getAddress(wrapper));
  return getAddress(wrapper);
}
