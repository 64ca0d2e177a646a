// viem clients for one JSON-RPC endpoint, with a chain object built from its chain id
// (the devnet and arbitrary production chains alike, no hard-coded chain list).
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  type Account,
  type Chain,
  type Hex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { postJsonFetch } from '../net/json-post.ts';

export type ChainClients = {
  chain: Chain;
  publicClient: PublicClient<Transport, Chain>;
};

export type SigningChainClients = ChainClients & {
  account: Account;
  walletClient: WalletClient<Transport, Chain, Account>;
};

export function chainFromRpc(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/**
 * viem's HTTP transport on `node:http` instead of `fetch`: the node polls its RPC all the time and
 * fetch's responses outlive the young-generation GC (src/net/json-post.ts).
 */
export function rpcTransport(rpcUrl: string) {
  return http(rpcUrl, { fetchFn: postJsonFetch });
}

/** Reads the chain id from the endpoint, then builds the clients. */
export async function connectChain(rpcUrl: string): Promise<ChainClients> {
  const probe = createPublicClient({ transport: rpcTransport(rpcUrl) });
  const chain = chainFromRpc(await probe.getChainId(), rpcUrl);
  // Polling faster than viem's 4 s default: devnet blocks come every second.
  const publicClient = createPublicClient({ chain, transport: rpcTransport(rpcUrl), pollingInterval: 250 });
  return { chain, publicClient };
}

export async function connectSigner(rpcUrl: string, privateKey: Hex): Promise<SigningChainClients> {
  const { chain, publicClient } = await connectChain(rpcUrl);
  const account = privateKeyToAccount(privateKey);
  const walletClient = createWalletClient({ account, chain, transport: rpcTransport(rpcUrl), pollingInterval: 250 });
  return { chain, publicClient, account, walletClient };
}
