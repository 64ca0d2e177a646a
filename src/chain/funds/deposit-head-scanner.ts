/**
 * The PENDING view of deposits: the chain follower only reads final blocks, so this light scanner
 * reads the blocks above the follower's cursor up to the head and records transfers into custody
 * as PENDING deposits (idempotent per (txHash, logIndex); services/funds/deposits.ts). It applies
 * the same exclusions as the follower (settlement transactions, promised deliveries), decides
 * nothing final and credits nothing: a row it wrote whose block is reorganised away is failed by
 * the follower. Its position is per node and in memory; a restart rescans from the cursor.
 */
import type { Logger } from 'pino';
import { numberToHex, type Address, type Hex } from 'viem';
import { inTransaction } from '../../store/outbox.ts';
import { readCursor } from '../../store/chain-cursor.ts';
import type { ServiceDeps } from '../../services/deps.ts';
import { recordPendingDeposit } from '../../services/funds/deposits.ts';
import { findPromisedQuote } from '../../services/rfq/promised-delivery.ts';
import type { ChainContext } from '../chain-context.ts';
import { inflowFilters, parseInflows, settlementTxs, type RawLog } from './custody-inflows.ts';
import { PollLoop } from '../poll-loop.ts';

const RPC_TIMEOUT_MS = 10_000;
/** Blocks read per scan at most (bounds one eth_getLogs range). */
const MAX_BLOCKS_PER_SCAN = 200;

export class DepositHeadScanner {
  #scannedTo = -1;
  readonly #loop: PollLoop;
  readonly #deps: ServiceDeps;
  readonly #chain: ChainContext;
  readonly #logger: Logger;

  constructor(deps: ServiceDeps, chain: ChainContext, logger: Logger) {
    this.#deps = deps;
    this.#chain = chain;
    this.#logger = logger;
    this.#loop = new PollLoop({ pass: () => this.scan(), intervalMs: () => chain.settings.pollIntervalMs, logger, failureMessage: 'deposit head scan failed; retrying' });
  }

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
  }

  #rpc<T>(method: string, params: unknown[]): Promise<T> {
    const request = this.#chain.custody.publicClient.request as (a: { method: string; params: unknown[] }) => Promise<T>;
    return Promise.race([
      request({ method, params }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${method} timed out after ${RPC_TIMEOUT_MS} ms`)), RPC_TIMEOUT_MS).unref()),
    ]);
  }

  /** One scan from above the follower's cursor (or where this scanner stopped) to the head. */
  async scan(): Promise<number> {
    const cursor = await readCursor(this.#deps.db, 'main');
    if (!cursor) return 0;
    const head = Number(await this.#rpc<Hex>('eth_blockNumber', []));
    const fromBlock = Math.max(cursor.blockNumber + 1, this.#scannedTo + 1);
    if (fromBlock > head) return 0;
    const toBlock = Math.min(head, fromBlock + MAX_BLOCKS_PER_SCAN - 1);
    // Fresh, as the follower's filters: a stale cache would skip a new token's blocks for good.
    const reference = await this.#deps.refdata.reload();
    const logs: RawLog[] = [];
    for (const filter of inflowFilters(this.#chain, reference)) {
      if (filter.address && filter.address.length === 0) continue;
      const raw = await this.#rpc<Array<{ address: Address; topics: Hex[]; data: Hex; transactionHash: Hex; blockNumber: Hex; logIndex: Hex; removed?: boolean }>>('eth_getLogs', [
        { fromBlock: numberToHex(fromBlock), toBlock: numberToHex(toBlock), ...(filter.address ? { address: filter.address } : {}), topics: [filter.topic0, ...(filter.topics ?? [])] },
      ]);
      for (const l of raw) if (!l.removed) logs.push({ address: l.address, topics: l.topics, data: l.data, transactionHash: l.transactionHash, blockNumber: Number(l.blockNumber), logIndex: Number(l.logIndex) });
    }
    const settled = await settlementTxs(this.#chain, logs);
    const stamps = new Map<number, number>();
    let recorded = 0;
    for (const inflow of parseInflows(logs, reference, this.#chain.custodyAddress)) {
      if (settled.has(inflow.txHash)) continue;
      if (!stamps.has(inflow.blockNumber)) {
        const block = await this.#rpc<{ timestamp: Hex } | null>('eth_getBlockByNumber', [numberToHex(inflow.blockNumber), false]);
        if (!block) continue;
        stamps.set(inflow.blockNumber, Number(block.timestamp));
      }
      if (await findPromisedQuote(this.#deps.db, { ...inflow, blockTimestampSecs: stamps.get(inflow.blockNumber)! })) continue;
      if (await inTransaction(this.#deps.db, (tx) => recordPendingDeposit(tx, this.#deps, inflow))) recorded++;
    }
    this.#scannedTo = toBlock;
    return recorded;
  }
}
