/** The factory wrapper of a maker, cached per node: a wrapper never changes once deployed. */
import { getAddress, zeroAddress, type Address } from 'viem';
import { rfqMakerWrapperFactoryAbi } from '../artifacts/index.ts';
import type { ChainContext } from '../chain-context.ts';

const cache = new WeakMap<ChainContext, Map<Address, Address>>();

export async function wrapperOfMaker(chain: ChainContext, maker: Address): Promise<Address | null> {
  let known = cache.get(chain);
  if (!known) cache.set(chain, (known = new Map()));
  const hit = known.get(maker);
  if (hit) return hit;
  const wrapper = await chain.custody.publicClient.readContract({
    address: chain.settings.wrapperFactoryAddress,
    abi: rfqMakerWrapperFactoryAbi,
    functionName: 'wrapperOf',
    args: [maker],
  });
  if (wrapper === zeroAddress) return null;
  known.set(maker, getAddress(wrapper));
  return getAddress(wrapper);
}
