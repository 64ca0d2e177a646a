/**
 * Follows the chain block by block and hands the logs its handlers asked for to them, inside one
 * store transaction per step that also advances the persisted cursor. So a step's effects
 * (settlements, deposits ...) commit together with "these blocks are done", and a crash or a
 * second node can neither skip nor repeat a block: the cursor row is locked for the step and a
 * node that finds it moved abandons its step.
 *
 * Only final blocks are read: `confirmations` blocks on top (itself included) and, on the embedded
 * devnet, saved on disk (chain-context.ts `finalBlock`). At start the store's last booked block is
 * checked against the chain; a mismatch halts with one line saying what is wrong. The hash of the
 * last processed block is kept; if the chain no longer has it, a reorganisation went deeper than
 * the confirmation depth, which this follower cannot undo: it stops advancing and says so
 * loudly (the operator raises the depth and resolves by hand).
 */
import type { Logger } from 'pino';
import { numberToHex, type Address, type Hex } from 'viem';
import { inTransaction } from '../../store/outbox.ts';
import { advanceCursor, initCursor, lockCursor, readCursor, type ChainCursor } from '../../store/chain-cursor.ts';
import type { Db, Tx } from '../../store/transaction.ts';
import { finalBlock, type ChainContext } from '../chain-context.ts';

export interface ObservedLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  transactionHash: Hex;
  blockNumber: number;
  logIndex: number;
  blockTimestampSecs: number;
}

/** eth_getLogs filter: any of `address` (all when absent) and topic0 any of `topic0`. */
export interface LogFilter {
  address?: Address[];
  topic0: Hex[];
  /** Further topic positions (topic1, topic2 ...), each any-of or null for any. */
  topics?: Array<Hex[] | null>;
}

export interface ChainStep {
  fromBlock: number;
  toBlock: number;
  /** Timestamp (unix seconds) of `toBlock`: chain time that is now final. */
  toBlockTimestampSecs: number;
  /** Every log the handlers asked for in the range, ordered by (block, logIndex), no duplicates. */
  logs: ObservedLog[];
  /** How many times in a row this step (same cursor) failed before; handlers quarantine a failing log past a bound (log-quarantine.ts). */
  failedAttempts?: number;
}

export interface ChainLogHandler {
  name: string;
  /** The logs this handler needs; asked before every step (tokens and wrappers may change). */
  filters(): Promise<LogFilter[]> | LogFilter[];
  /** Runs inside the step's transaction; throwing rolls the step back and it is retried. */
  handle(tx: Tx, step: ChainStep): Promise<void>;
  /**
   * Operator replay (log-replay.ts): this handler's work for one log, as `handle` does it for a
   * log of a step, inside `tx` and without the quarantine's isolation (an error is thrown).
   */
  replay?(tx: Tx, log: ObservedLog): Promise<void>;
}

export interface ChainWatcherOptions {
  db: Db;
  chain: ChainContext;
  handlers: ChainLogHandler[];
  logger: Logger;
  /** Cursor name: one per chain follower. */
  name?: string;
  /** Blocks per step at most: bounds one transaction and one eth_getLogs range. */
  maxBlocksPerStep?: number;
  now?: () => number;
  /** Called after each committed step (wakes deadline checks that wait for chain time). */
  onStep?: (step: Omit<ChainStep, 'logs'>) => void;
}

const RPC_TIMEOUT_MS = 10_000;
/**
 * Start-up checks in a row that found no block at the store's height below the chain's head
 * before that counts as a lost history (one answer can be a node that has not caught up; anvil
 * reverted under its interval miner was seen to keep such a hole for good, in CI).
 */
const START_MISSING_BLOCK_CHECKS = 5;

export class ChainWatcher {
  private readonly options: Required<Omit<ChainWatcherOptions, 'onStep'>> & Pick<ChainWatcherOptions, 'onStep'>;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** Set when a reorg deeper than the confirmation depth was found; the follower stays put. */
  halted: string | null = null;
  /** The store's last booked block was checked against the chain (once per start). */
  private startChecked = false;
  /** Start-up checks so far that found no block at the store's height (START_MISSING_BLOCK_CHECKS). */
  private startMissing = 0;
  /** Consecutive failed steps at `failedAt` (the cursor block): feeds the handlers' quarantine. */
  private failedAttempts = 0;
  private failedAt = -1;
  /** `afterStep` callers waiting for the next step to begin and end. */
  private waiting: Array<() => void> = [];

  constructor(options: ChainWatcherOptions) {
    this.options = { name: 'main', maxBlocksPerStep: 200, now: () => Date.now(), ...options };
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /**
   * Resolves once a step begun after the call has ended (advanced, found nothing final, or
   * failed), or the follower stopped: a block final by the call's time is booked by then. Tests
   * wait on it to show the follower does not go past a block.
   */
  afterStep(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const waiting = this.waiting.splice(0);
      this.running = this.step()
        .then((advanced) => this.schedule(advanced ? 0 : this.options.chain.settings.pollIntervalMs))
        .catch((error: unknown) => {
          this.options.logger.warn({ err: error }, 'chain step failed; retrying');
          this.schedule(Math.max(1000, this.options.chain.settings.pollIntervalMs));
        })
        .finally(() => {
          for (const resolve of waiting) resolve();
          this.running = null;
        });
    }, delayMs);
    this.timer.unref();
  }

  private rpc<T>(method: string, params: unknown[]): Promise<T> {
    const request = this.options.chain.custody.publicClient.request as (a: { method: string; params: unknown[] }, o?: { retryCount?: number }) => Promise<T>;
    return Promise.race([
      request({ method, params }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${method} timed out after ${RPC_TIMEOUT_MS} ms`)), RPC_TIMEOUT_MS).unref()),
    ]);
  }

  private async block(number: number | 'latest'): Promise<{ number: number; hash: Hex; timestampSecs: number }> {
    const tag = number === 'latest' ? 'latest' : numberToHex(number);
    const block = await this.rpc<{ number: Hex; hash: Hex; timestamp: Hex } | null>('eth_getBlockByNumber', [tag, false]);
    if (!block) throw new Error(`block ${number} not available`);
    return { number: Number(block.number), hash: block.hash, timestampSecs: Number(block.timestamp) };
  }

  private async initialCursor(): Promise<ChainCursor> {
    const { name } = this.options;
    const stored = await readCursor(this.options.db, name);
    if (stored) return stored;
    const start = this.options.chain.settings.startBlock;
    const first: ChainCursor =
      start === 'latest'
        ? await this.block('latest').then((b) => ({ name, blockNumber: b.number, blockHash: b.hash, blockTimestampSecs: b.timestampSecs }))
        : { name, blockNumber: start - 1, blockHash: '', blockTimestampSecs: 0 };
    await initCursor(this.options.db, first, this.options.now());
    return (await readCursor(this.options.db, name))!;
  }

  /** One step; true when it advanced (so the next one runs at once). Exported for tests. */
  async step(): Promise<boolean> {
    if (this.halted) return false;
    const cursor = await this.initialCursor();
    const head = Number(await this.rpc<Hex>('eth_blockNumber', []));
    if (!this.startChecked) {
      const mismatch = await this.storeAgainstChain(cursor, head);
      if (mismatch) return this.halt(mismatch, cursor);
      this.startChecked = true;
    }
    const final = finalBlock(this.options.chain.settings, head);
    if (final <= cursor.blockNumber) return false;
    if (cursor.blockHash !== '') {
      const seen = await this.block(cursor.blockNumber);
      if (seen.hash !== cursor.blockHash) return this.halt(`block ${cursor.blockNumber} is now ${seen.hash}, was ${cursor.blockHash}: reorganisation deeper than ${this.options.chain.settings.confirmations} confirmations`, cursor);
    }
    const fromBlock = cursor.blockNumber + 1;
    const toBlock = Math.min(final, cursor.blockNumber + this.options.maxBlocksPerStep);
    const logs = await this.logsBetween(fromBlock, toBlock);
    const last = await this.block(toBlock);
    if (this.failedAt !== cursor.blockNumber) this.failedAttempts = 0;
    const step: ChainStep = { fromBlock, toBlock, toBlockTimestampSecs: last.timestampSecs, logs, failedAttempts: this.failedAttempts };
    let committed: boolean;
    try {
      committed = await inTransaction(this.options.db, async (tx) => {
        const locked = await lockCursor(tx, this.options.name);
        // Another node took this step first: its effects are committed; ours would repeat them.
        if (!locked || locked.blockNumber !== cursor.blockNumber) return false;
        for (const handler of this.options.handlers) await handler.handle(tx, step);
        await advanceCursor(tx, { name: this.options.name, blockNumber: toBlock, blockHash: last.hash, blockTimestampSecs: last.timestampSecs }, this.options.now());
        return true;
      });
    } catch (error) {
      this.failedAt = cursor.blockNumber;
      this.failedAttempts++;
      throw error;
    }
    this.failedAttempts = 0;
    if (committed) this.options.onStep?.({ fromBlock, toBlock, toBlockTimestampSecs: last.timestampSecs });
    return true;
  }

  private halt(reason: string, cursor: ChainCursor): false {
    this.halted = reason;
    this.options.logger.error({ cursor }, `chain follower halted: ${reason}`);
    return false;
  }

  /**
   * Start-up check: the block the store booked last must still be on the chain with the same
   * hash. If not, the store is ahead of the chain or on another history (the chain's data was
   * reset or restored from an older copy): one line saying which, instead of waiting forever.
   */
  private async storeAgainstChain(cursor: ChainCursor, head: number): Promise<string | null> {
    if (cursor.blockHash === '') return null;
    const booked = `the store has booked the chain up to block ${cursor.blockNumber} (${cursor.blockHash})`;
    if (head < cursor.blockNumber) return `${booked} but the chain's head is block ${head}: the chain lost blocks the store counts on (its data is older than the store's or was reset); restore the matching chain data or start both afresh`;
    const seen = await this.rpc<{ hash: Hex } | null>('eth_getBlockByNumber', [numberToHex(cursor.blockNumber), false]);
    if (!seen) {
      // Retried by the step's schedule; a hole that stays is a chain that lost the block.
      if (++this.startMissing < START_MISSING_BLOCK_CHECKS) throw new Error(`block ${cursor.blockNumber} not available (head ${head})`);
      return `${booked} but the chain's head is block ${head} and it has no block ${cursor.blockNumber}: the chain lost blocks the store counts on (its data is older than the store's or was reset); restore the matching chain data or start both afresh`;
    }
    if (seen.hash !== cursor.blockHash) return `${booked} but the chain has ${seen.hash} at that height: store and chain hold different histories (chain data reset or from another copy); restore the matching chain data or start both afresh`;
    return null;
  }

  private async logsBetween(fromBlock: number, toBlock: number): Promise<ObservedLog[]> {
    const filters = (await Promise.all(this.options.handlers.map(async (h) => h.filters()))).flat();
    const byKey = new Map<string, Omit<ObservedLog, 'blockTimestampSecs'>>();
    for (const filter of filters) {
      if (filter.address && filter.address.length === 0) continue;
      const raw = await this.rpc<Array<{ address: Address; topics: Hex[]; data: Hex; transactionHash: Hex; blockNumber: Hex; logIndex: Hex; removed?: boolean }>>('eth_getLogs', [
        {
          fromBlock: numberToHex(fromBlock),
          toBlock: numberToHex(toBlock),
          ...(filter.address ? { address: filter.address } : {}),
          topics: [filter.topic0, ...(filter.topics ?? [])],
        },
      ]);
      for (const log of raw) {
        if (log.removed) continue;
        const entry = { address: log.address, topics: log.topics, data: log.data, transactionHash: log.transactionHash, blockNumber: Number(log.blockNumber), logIndex: Number(log.logIndex) };
        byKey.set(`${entry.blockNumber}:${entry.logIndex}`, entry);
      }
    }
    const ordered = [...byKey.values()].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
    const timestamps = new Map<number, number>();
    for (const blockNumber of new Set(ordered.map((l) => l.blockNumber))) timestamps.set(blockNumber, (await this.block(blockNumber)).timestampSecs);
    return ordered.map((l) => ({ ...l, blockTimestampSecs: timestamps.get(l.blockNumber)! }));
  }
}
