/**
 * Everything a node does with the chain, wired in one place: settlement gateways per mode, the
 * log handlers the chain follower runs, the maker-spender check and the on-chain invariants.
 * Each settlement feature adds its parts here.
 */
import type { Logger } from 'pino';
import { getAddress } from 'viem';
import type { NodeContext } from './node-context.ts';
import { wrapperOfMaker } from '../chain/funds/wrapper-of.ts';
import type { ChainContext } from '../chain/chain-context.ts';
import type { ChainLogHandler } from '../chain/watcher/chain-watcher.ts';
import { xchangeOperation } from '../chain/xchange-operation.ts';
import { xchangeSettledHandler } from '../chain/watcher/xchange-settled-handler.ts';
import { XchangeExecutor } from '../chain/xchange-executor.ts';
import { rfqSettledHandler } from '../chain/rfq-settled-handler.ts';
import { promisedDeliveryHandler } from '../chain/funds/promised-delivery-handler.ts';
import { depositHandler } from '../chain/funds/deposit-handler.ts';
import { custodyInvariant } from '../chain/funds/custody-invariant.ts';
import { custodyChainReader } from '../chain/custody/custody-chain-reader.ts';
import { quarantineInvariant, registerQuarantineGauge } from '../chain/watcher/quarantine-invariant.ts';
import { chainLogReplay } from '../chain/watcher/log-replay.ts';
import { wireSettlementGateways } from './service-deps.ts';

export interface ChainWiring {
  /** Handlers the chain follower runs on every step, in this order. */
  handlers: ChainLogHandler[];
  /** Loops that run with the settlement worker (e.g. custody executing xchange swaps). */
  background: Array<{ readonly name: string; start(): void; stop(): Promise<void>; afterPass(): Promise<void> }>;
}

export function wireChain(context: NodeContext, chain: ChainContext, logger: Logger): ChainWiring {
  // A maker's spender must be the wrapper the project's factory deployed for that maker (DESIGN 5).
  context.spenderCheck = async (maker) => ({ wrapper: await wrapperOfMaker(chain, getAddress(maker)), factory: chain.settings.wrapperFactoryAddress });
  const wiring: ChainWiring = { handlers: [], background: [] };
  // Settlement gateways: permit2 and promised mode.
  wireSettlementGateways(context.service, chain, logger);
  // funds: deposits (promised deliveries first: the deposit handler skips them) and the on-chain custody check.
  context.extraInvariants.push(custodyInvariant(chain));
  context.service.custodyChain = custodyChainReader(chain);
  // A chain log the follower quarantined stays an invariant violation and a gauge until resolved.
  context.extraInvariants.push(quarantineInvariant());
  registerQuarantineGauge(context.metrics.registry, context.service.db);
  wiring.handlers.push(rfqSettledHandler(context.service, logger), promisedDeliveryHandler(context.service, chain));
  // xchange: bundles checked at quote time, executed by custody, settled from the adapter's event.
  const adapter = chain.settings.xchangeAdapterAddress;
  if (adapter) {
    context.service.xchange = xchangeOperation(chain, adapter);
    wiring.handlers.push(xchangeSettledHandler(context.service, adapter, logger));
    wiring.background.push(new XchangeExecutor({ deps: context.service, chain, adapter, logger }));
  }
  // Deposits last: a transfer into custody inside a settlement transaction is not a deposit.
  wiring.handlers.push(depositHandler(context.service, chain));
  // The operator replays a quarantined log through these same handlers, once its cause is fixed.
  context.service.chainLogReplay = chainLogReplay(wiring.handlers);
  return wiring;
}
