/**
 * A contract anyone could deploy that emits an RfqSettled with whatever arguments it is given:
 * what the chain follower must refuse to settle on. Compiled with solc-js at test time (it is a
 * test tool, not part of the project's contracts).
 */
import solc from 'solc';
import { type Abi, type Address, type Hex } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import { connectSigner } from '../../../src/chain/clients.ts';
import { testAccount, type TestChain } from '../../helpers/chain.ts';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
contract Forger {
  event RfqSettled(bytes32 indexed quoteHash, address indexed maker, address payToken, uint256 payAmount, address deliverToken, uint256 deliverAmount);
  function forge(bytes32 quoteHash, address maker, address payToken, uint256 payAmount, address deliverToken, uint256 deliverAmount) external {
    emit RfqSettled(quoteHash, maker, payToken, payAmount, deliverToken, deliverAmount);
  }
}`;

let compiled: { abi: Abi; bytecode: Hex } | null = null;
function forgerArtifact(): { abi: Abi; bytecode: Hex } {
  if (compiled) return compiled;
  const input = { language: 'Solidity', sources: { 'Forger.sol': { content: SOURCE } }, settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as { contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>; errors?: Array<{ severity: string; formattedMessage: string }> };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const forger = output.contracts['Forger.sol']!['Forger']!;
  compiled = { abi: forger.abi, bytecode: `0x${forger.evm.bytecode.object}` };
  return compiled;
}

const key = generatePrivateKey();
let funded = false;
async function signer(chain: TestChain) {
  if (!funded) await chain.fundGas(testAccount(key).address);
  funded = true;
  return connectSigner(chain.rpcUrl, key);
}

export async function deployForger(chain: TestChain): Promise<Address> {
  funded = false;
  const c = await signer(chain);
  const { abi, bytecode } = forgerArtifact();
  const hash = await c.walletClient.deployContract({ abi, bytecode });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error('Forger not deployed');
  return receipt.contractAddress;
}

export interface ForgedArgs { quoteHash: Hex; maker: Address; payToken: Address; payAmount: bigint; deliverToken: Address; deliverAmount: bigint }

/** Calls `forge` on `at` (a Forger, or any address given the Forger's code); returns the mined tx hash. */
export async function forgeRfqSettled(chain: TestChain, at: Address, a: ForgedArgs): Promise<Hex> {
  const c = await signer(chain);
  const hash = await c.walletClient.writeContract({
    address: at,
    abi: forgerArtifact().abi,
    functionName: 'forge',
    args: [a.quoteHash, a.maker, a.payToken, a.payAmount, a.deliverToken, a.deliverAmount],
    gas: 200_000n,
  });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error('forge reverted');
  return hash;
}
