/**
 * Token transfers into custody as the chain shows them, and which of them belong to a settlement
 * transaction (DESIGN.md section 5: a transfer into custody inside a transaction that carries
 * `RfqSettled` from a factory wrapper, or the xchange adapter's `XchangeSettled`, is settlement,
 * never a deposit).
 */
import { getAddress, pad, toEventSelector, type Address, type Hex } from 'viem';
import { rfqMakerWrapperAbi, xchangeAdapterAbi } from '../artifacts/index.ts';
import type { ChainContext } from '../chain-context.ts';
import type { LogFilter } from '../watcher/chain-watcher.ts';
import { wrapperOfMaker } from './wrapper-of.ts';
import type { ReferenceSnapshot } from '../../store/reference-data.ts';

export const TRANSFER_TOPIC: Hex = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const RFQ_SETTLED_TOPIC: Hex = toEventSelector(rfqMakerWrapperAbi.find((x) => x.type === 'event' && x.name === 'RfqSettled')!);
export const XCHANGE_SETTLED_TOPIC: Hex = toEventSelector(xchangeAdapterAbi.find((x) => x.type === 'event' && x.name === 'XchangeSettled')!);

export interface RawLog { address: Address; topics: Hex[]; data: Hex; transactionHash: Hex; logIndex: number; blockNumber: number }

export interface Inflow {
  token: string;
  from: Address;
  amount: bigint;
  txHash: string;
  logIndex: number;
  blockNumber: number;
}

function listedByAddress(reference: ReferenceSnapshot): Map<string, string> {
  const map = new Map<string, string>();
  for (const token of reference.tokens.values()) if (token.address) map.set(token.address.toLowerCase(), token.symbol);
  return map;
}

/** Transfers of listed tokens into custody, plus the settlement events that exclude some of them. */
export function inflowFilters(chain: ChainContext, reference: ReferenceSnapshot): LogFilter[] {
  const tokens = [...listedByAddress(reference).keys()].map((a) => getAddress(a));
  const filters: LogFilter[] = [
    { address: tokens, topic0: [TRANSFER_TOPIC], topics: [null, [pad(chain.custodyAddress).toLowerCase() as Hex]] },
    { topic0: [RFQ_SETTLED_TOPIC] },
  ];
  if (chain.settings.xchangeAdapterAddress) filters.push({ address: [chain.settings.xchangeAdapterAddress], topic0: [XCHANGE_SETTLED_TOPIC] });
  return filters;
}

/** An ERC-20 Transfer's data is exactly one 32-byte word (the amount). */
const AMOUNT_WORD = /^0x[0-9a-fA-F]{64}$/;

/** Transfer logs of listed tokens into custody whose amount cannot be read: never an inflow (the deposit handler quarantines them). */
export function malformedInflows(logs: RawLog[], reference: ReferenceSnapshot, custody: Address): RawLog[] {
  const listed = listedByAddress(reference);
  const custodyTopic = pad(custody).toLowerCase();
  return logs.filter((log) => log.topics[0] === TRANSFER_TOPIC && log.topics[2]?.toLowerCase() === custodyTopic && listed.has(log.address.toLowerCase()) && (log.topics.length !== 3 || !AMOUNT_WORD.test(log.data)));
}

export function parseInflows(logs: RawLog[], reference: ReferenceSnapshot, custody: Address): Inflow[] {
  const listed = listedByAddress(reference);
  const custodyTopic = pad(custody).toLowerCase();
  const inflows: Inflow[] = [];
  for (const log of logs) {
    if (log.topics[0] !== TRANSFER_TOPIC || log.topics.length !== 3 || log.topics[2]?.toLowerCase() !== custodyTopic) continue;
    const token = listed.get(log.address.toLowerCase());
    if (!token || !AMOUNT_WORD.test(log.data)) continue;
    const amount = BigInt(log.data);
    if (amount === 0n) continue;
    inflows.push({ token, from: getAddress(`0x${log.topics[1]!.slice(26)}`), amount, txHash: log.transactionHash.toLowerCase(), logIndex: log.logIndex, blockNumber: log.blockNumber });
  }
  return inflows;
}

/** One scan per step: the handlers of a step share its `logs` array, so they share the answer. */
const scanned = new WeakMap<RawLog[], Promise<Set<string>>>();

/** Transaction hashes (lowercase) among `logs` that carry a genuine settlement event. */
export function settlementTxs(chain: ChainContext, logs: RawLog[]): Promise<Set<string>> {
  let scan = scanned.get(logs);
  if (!scan) {
    scan = scanSettlementTxs(chain, logs);
    scanned.set(logs, scan);
    scan.catch(() => scanned.delete(logs));
  }
  return scan;
}

async function scanSettlementTxs(chain: ChainContext, logs: RawLog[]): Promise<Set<string>> {
  const txs = new Set<string>();
  // Asked at the scan's last block: a wrapper is never removed, and none can have emitted before
  // it existed, so "wrapperOf(maker) is the emitter" there decides every log of the scan, and a
  // maker named by many forged logs costs one call.
  const atBlock = logs.reduce((max, l) => Math.max(max, l.blockNumber), 0);
  for (const log of logs) {
    const hash = log.transactionHash.toLowerCase();
    if (txs.has(hash)) continue;
    if (log.topics[0] === XCHANGE_SETTLED_TOPIC && chain.settings.xchangeAdapterAddress && getAddress(log.address) === getAddress(chain.settings.xchangeAdapterAddress)) {
      txs.add(hash);
    } else if (log.topics[0] === RFQ_SETTLED_TOPIC && log.topics[2]) {
      // Only a factory wrapper's event counts: anyone can emit an event with this signature.
      const maker = getAddress(`0x${log.topics[2].slice(26)}`);
      if ((await wrapperOfMaker(chain, maker, atBlock)) === getAddress(log.address)) txs.add(hash);
    }
  }
  return txs;
}
