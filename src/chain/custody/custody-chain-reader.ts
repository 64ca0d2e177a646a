/**
 * Custody's own transactions as the chain sees them (the funds use cases' port), plus the one
 * JSON-RPC call shape the broadcaster and the reader share: every call bounded by a timeout.
 */
import type { Hex } from 'viem';
import type { CustodyChainReader } from '../../services/funds/custody-chain.ts';
import type { ChainContext } from '../chain-context.ts';

const RPC_TIMEOUT_MS = 10_000;

export function custodyRpc<T>(chain: ChainContext, method: string, params: unknown[]): Promise<T> {
  const request = chain.custody.publicClient.request as (a: { method: string; params: unknown[] }) => Promise<T>;
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    request({ method, params }),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${method} timed out after ${RPC_TIMEOUT_MS} ms`)), RPC_TIMEOUT_MS);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

export function custodyChainReader(chain: ChainContext): CustodyChainReader {
  return {
    async minedNonceCount() {
      return Number(await custodyRpc<Hex>(chain, 'eth_getTransactionCount', [chain.custodyAddress, 'latest']));
    },
    async receiptStatus(txHash) {
      const receipt = await custodyRpc<{ status: Hex } | null>(chain, 'eth_getTransactionReceipt', [txHash]);
      if (!receipt) return null;
      return receipt.status === '0x1' ? 'success' : 'reverted';
    },
  };
}
