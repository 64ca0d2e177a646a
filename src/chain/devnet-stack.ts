/**
 * A devnet ready to settle on: anvil started, custody and deployer funded with gas, the
 * project's contracts deployed, and custody's Permit2 and xchange-adapter allowances granted for every token. The
 * embedded stack and the chain tests both start one; the result plugs into a node as its
 * ChainSettings.
 */
import { maxUint256, parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { testTokenAbi } from './artifacts/index.ts';
import type { ChainSettings } from './chain-context.ts';
import { connectSigner } from './clients.ts';
import { deployContracts, type DeployedContracts, type TokenSpec } from './deploy.ts';
import { startDevnet, type Devnet } from './devnet.ts';
import { setDevnetBalance } from './faucet.ts';

export interface DevnetStackOptions {
  custodyKey: Hex;
  /** Deploys the contracts and owns the test tokens (the faucet key). */
  deployerKey: Hex;
  tokens: TokenSpec[];
  /** anvil state file, so a restart resumes the same chain. */
  stateFile?: string;
  /** Interval mining period (DESIGN 5: one block a second in the embedded stack). */
  blockTimeSecs?: number;
  confirmations?: number;
  pollIntervalMs?: number;
  /** The devnet's port (default: any free one). */
  port?: number;
}

export interface DevnetStack {
  devnet: Devnet;
  deployed: DeployedContracts;
  settings: ChainSettings;
  stop(): Promise<void>;
}

const GAS_FUNDING_WEI = parseEther('1000');

export async function startDevnetStack(options: DevnetStackOptions): Promise<DevnetStack> {
  const devnet = await startDevnet({ blockTimeSecs: options.blockTimeSecs ?? 1, ...(options.stateFile ? { stateFile: options.stateFile } : {}), ...(options.port ? { port: options.port } : {}) });
  try {
    const custody = privateKeyToAccount(options.custodyKey).address;
    const deployer = privateKeyToAccount(options.deployerKey).address;
    for (const address of [custody, deployer]) await setDevnetBalance({ rpcUrl: devnet.rpcUrl, address, wei: GAS_FUNDING_WEI });
    const deployed = await deployContracts({ rpcUrl: devnet.rpcUrl, deployerKey: options.deployerKey, custodyAddress: custody, tokens: options.tokens });
    await approvePermit2(devnet.rpcUrl, options.custodyKey, deployed.permit2Address, deployed.tokens.map((t) => t.address));
    // The xchange adapter moves custody's leg only in custody's own execute calls (xchange-executor.ts).
    await approvePermit2(devnet.rpcUrl, options.custodyKey, deployed.xchangeAdapterAddress, deployed.tokens.map((t) => t.address));
    return {
      devnet,
      deployed,
      settings: {
        rpcUrl: devnet.rpcUrl,
        custodyKey: options.custodyKey,
        permit2Address: deployed.permit2Address,
        wrapperFactoryAddress: deployed.wrapperFactoryAddress,
        xchangeAdapterAddress: deployed.xchangeAdapterAddress,
        confirmations: options.confirmations ?? 1,
        pollIntervalMs: options.pollIntervalMs ?? 200,
        startBlock: 0,
        faucetKey: options.deployerKey,
        publicRpcUrl: devnet.rpcUrl,
        durableBlock: devnet.durableBlock,
      },
      stop: () => devnet.stop(),
    };
  } catch (error) {
    await devnet.stop();
    throw error;
  }
}

/** Custody lets Permit2 (or the xchange adapter) move its tokens; each permit or swap bounds what moves. */
async function approvePermit2(rpcUrl: string, custodyKey: Hex, permit2: Address, tokens: Address[]): Promise<void> {
  const c = await connectSigner(rpcUrl, custodyKey);
  for (const token of tokens) {
    const allowance = await c.publicClient.readContract({ address: token, abi: testTokenAbi, functionName: 'allowance', args: [c.account.address, permit2] });
    if (allowance === maxUint256) continue;
    const hash = await c.walletClient.writeContract({ address: token, abi: testTokenAbi, functionName: 'approve', args: [permit2, maxUint256] });
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`custody approval of Permit2 for ${token} failed (tx ${hash})`);
  }
}
