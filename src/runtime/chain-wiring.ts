/**
 * Everything a node does with the chain, wired in one place: settlement gateways per mode, the
 * log handlers the chain follower runs, the maker-spender check and the on-chain invariants.
 * Each settlement feature adds its parts here.
 */
import type { Logger } from 'pino';
import { getAddress, zeroAddress, type Address } from 'viem';
import type { ApiContext } from '../api/context.ts';
import { rfqMakerWrapperFactoryAbi } from '../chain/artifacts/index.ts';
import type { ChainContext } from '../chain/chain-context.ts';
import type { ChainLogHandler } from '../chain/watcher/chain-watcher.ts';
import { permit2Gateway } from '../chain/permit2-gateway.ts';
import { rfqSettledHandler } from '../chain/rfq-settled-handler.ts';
import { promisedDeliveryHandler } from '../chain/funds/promised-delivery-handler.ts';
import { depositHandler } from '../chain/funds/deposit-handler.ts';
import { custodyInvariant } from '../chain/funds/custody-invariant.ts';
import { promisedGateway } from '../services/rfq/promised-gateway.ts';

export interface ChainWiring {
  /** Handlers the chain follower runs on every step, in this order. */
  handlers: ChainLogHandler[];
}

/** A maker's spender must be the wrapper the project's factory deployed for that maker (DESIGN 5). */
export async function wrapperOf(chain: ChainContext, maker: Address): Promise<Address | null> {
  const wrapper = await chain.custody.publicClient.readContract({
    address: chain.settings.wrapperFactoryAddress,
    abi: rfqMakerWrapperFactoryAbi,
    functionName: 'wrapperOf',
    args: [maker],
  });
  return wrapper === zeroAddress ? null : wrapper;
}

export function wireChain(context: ApiContext, chain: ChainContext, logger: Logger): ChainWiring {
  context.spenderCheck = async (maker, spender) => {
    const wrapper = await wrapperOf(chain, getAddress(maker));
    return wrapper !== null && wrapper === getAddress(spender);
  };
  context.service.settlement.permit2 = permit2Gateway(chain, context.service.refdata, logger);
  // funds: promised mode, deposits (promised deliveries first: the deposit handler skips them)
  // and the on-chain custody check.
  context.service.settlement.promised = promisedGateway;
  context.extraInvariants.push(custodyInvariant(chain));
  const handlers: ChainLogHandler[] = [rfqSettledHandler(context.service, logger), promisedDeliveryHandler(context.service, chain), depositHandler(context.service, chain)];
  return { handlers };
}
