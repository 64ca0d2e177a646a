/**
 * What the service needs to settle on an EVM chain: where the chain is, the custody key that
 * signs permits and sends payouts, the project's contracts, and how deep a block must be before
 * it counts. Built once per node from configuration (or from the embedded devnet).
 */
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { connectSigner, type SigningChainClients } from './clients.ts';

export interface ChainSettings {
  rpcUrl: string;
  /** Custody (omnibus) key: signs Permit2 authorisations and sends withdrawals and payouts. */
  custodyKey: Hex;
  permit2Address: Address;
  wrapperFactoryAddress: Address;
  xchangeAdapterAddress: Address | null;
  /** A block counts once this many blocks exist on top of it, itself included (1: as soon as mined). */
  confirmations: number;
  /** How often the follower asks for a new head. */
  pollIntervalMs: number;
  /** First block to follow when no cursor is stored yet; `latest` starts at the current head. */
  startBlock: number | 'latest';
  /** Embedded devnet only: the key that owns the test tokens (faucet), else null. */
  faucetKey: Hex | null;
  /** Embedded devnet only: the RPC URL published to integrators by GET /v1/rfq/network. */
  publicRpcUrl: string | null;
  /** The operator's cap on a custody transaction's max fee per gas (wei); unset: the broadcaster's default. */
  custodyMaxFeePerGasWei?: bigint;
  /**
   * Embedded devnet only: the highest block saved on disk (devnet-state.ts). No later block is
   * final, so the store never books what a restart of the chain would not have.
   */
  durableBlock?: (() => number) | null;
}

export interface ChainContext {
  settings: Readonly<ChainSettings>;
  chainId: number;
  custodyAddress: Address;
  /** Clients signing as custody. */
  custody: SigningChainClients;
}

/** The highest block that counts as final given the chain's head: `confirmations` deep and, on the embedded devnet, saved on disk. */
export function finalBlock(settings: Pick<ChainSettings, 'confirmations' | 'durableBlock'>, head: number): number {
  const deep = head - (settings.confirmations - 1);
  return settings.durableBlock ? Math.min(deep, settings.durableBlock()) : deep;
}

export async function connectChainContext(settings: ChainSettings): Promise<ChainContext> {
  const custody = await connectSigner(settings.rpcUrl, settings.custodyKey);
  return {
    settings: Object.freeze({ ...settings }),
    chainId: custody.chain.id,
    custodyAddress: privateKeyToAccount(settings.custodyKey).address,
    custody,
  };
}
