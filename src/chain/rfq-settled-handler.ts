/**
 * permit2-mode settlement, the observation half: the chain follower hands every `RfqSettled`
 * log, from any address, to settleQuote, which applies it only when it is the named quote's
 * settlement by that quote's wrapper (services/settlement/settle-quote.ts). Runs inside the
 * follower's step transaction, so a settlement commits with "this block is done".
 */
import type { Logger } from 'pino';
import { decodeEventLog, toEventSelector, type Hex } from 'viem';
import type { ServiceDeps } from '../services/deps.ts';
import { settleQuote } from '../services/settlement/settle-quote.ts';
import { rfqMakerWrapperAbi } from './artifacts/index.ts';
import type { Tx } from '../store/transaction.ts';
import type { ChainLogHandler, ObservedLog } from './watcher/chain-watcher.ts';
import { isolateLog } from './watcher/log-quarantine.ts';

export const RFQ_SETTLED_TOPIC: Hex = toEventSelector('RfqSettled(bytes32,address,address,uint256,address,uint256)');

type Decoded = ReturnType<typeof decodeEventLog<typeof rfqMakerWrapperAbi, 'RfqSettled'>>['args'];

export function rfqSettledHandler(deps: ServiceDeps, logger: Logger): ChainLogHandler {
  const decode = (log: ObservedLog): Decoded => decodeEventLog({ abi: rfqMakerWrapperAbi, eventName: 'RfqSettled', topics: log.topics as [Hex, ...Hex[]], data: log.data }).args;
  const settle = (tx: Tx, log: ObservedLog, args: Decoded) => settleQuote(
    tx,
    deps,
    {
      quoteHash: args.quoteHash,
      emitter: log.address,
      maker: args.maker,
      payToken: args.payToken,
      payAmount: args.payAmount,
      deliverToken: args.deliverToken,
      deliverAmount: args.deliverAmount,
      txHash: log.transactionHash,
      logIndex: log.logIndex,
      blockNumber: log.blockNumber,
      blockTimestampSecs: log.blockTimestampSecs,
    },
    logger,
  );

  return {
    name: 'rfq-settled',
    filters: () => [{ topic0: [RFQ_SETTLED_TOPIC] }],
    async handle(tx, step) {
      for (const log of step.logs) {
        if (log.topics[0] !== RFQ_SETTLED_TOPIC) continue;
        let args: Decoded;
        try {
          args = decode(log);
        } catch (error) {
          // Anyone can emit a log with this topic; a malformed one is not a settlement.
          logger.warn({ err: error, address: log.address, txHash: log.transactionHash }, 'undecodable RfqSettled log: ignored');
          continue;
        }
        const isolated = await isolateLog(tx, step, 'rfq-settled', log, deps.clock.now(), () => settle(tx, log, args));
        const outcome = isolated.quarantined ? 'quarantined' : isolated.value;
        logger.info({ quoteHash: args.quoteHash, txHash: log.transactionHash, outcome }, 'RfqSettled observed');
      }
    },
    async replay(tx, log) {
      if (log.topics[0] !== RFQ_SETTLED_TOPIC) return;
      const args = decode(log);
      logger.info({ quoteHash: args.quoteHash, txHash: log.transactionHash, outcome: await settle(tx, log, args) }, 'RfqSettled replayed by the operator');
    },
  };
}
