/**
 * The taker CLI's funds commands. `deposit` sends an ERC-20 to the service's custody address from
 * the wallet itself (a deposit is credited to the account whose address sent it, after the
 * chain's confirmations), on the chain `GET /v1/rfq/network` names: its RPC URL is published only
 * by the embedded devnet, elsewhere it is given. `withdraw` asks the service to pay tokens out
 * to the account's own address (`POST /v1/rfq/withdrawals`); an operator may have to approve it.
 */
import { erc20Abi, type Address, type Hex } from 'viem';
import { connectSigner } from '../chain/clients.ts';
import { parseAmount } from '../domain/money/index.ts';
import { ServiceError } from '../domain/errors.ts';
import type { RfqClient } from '../client/rfq-client.ts';
import type { Deposit } from '../client/types.ts';

/** A deposit that could not be sent (no RPC URL, unknown token, a reverted transfer); the message says what to do. */
export class DepositError extends Error {
  override readonly name = 'DepositError';
}

export interface DepositSent {
  txHash: Hex;
  token: string;
  amount: string;
  from: Address;
  custodyAddress: string;
  blockNumber: string;
}

export async function depositToCustody(client: RfqClient, input: { key: Hex; token: string; amount: string; rpcUrl: string | undefined }): Promise<DepositSent> {
  const network = await client.network();
  const token = network.tokens.find((t) => t.symbol === input.token.toUpperCase());
  if (!token) throw new DepositError(`unknown token ${input.token}: the service takes ${network.tokens.map((t) => t.symbol).join(', ')}`);
  const rpcUrl = input.rpcUrl ?? network.rpcUrl;
  if (!rpcUrl) throw new DepositError('the service publishes no RPC URL (only the embedded devnet does): give the chain\'s with --rpc-url or RFQ_RPC_URL');
  let raw: bigint;
  try {
    raw = parseAmount(input.amount, token.decimals, { field: 'amount', positive: true });
  } catch (error) {
    if (error instanceof ServiceError) throw new DepositError(`amount: ${error.message} (${token.symbol} has ${token.decimals} decimals)`);
    throw error;
  }
  let signer: Awaited<ReturnType<typeof connectSigner>>;
  try {
    signer = await connectSigner(rpcUrl, input.key);
  } catch (error) {
    throw new DepositError(`cannot reach the chain at ${rpcUrl}${input.rpcUrl ? '' : ' (published by the service)'}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}; give another with --rpc-url or RFQ_RPC_URL`);
  }
  if (signer.chain.id !== network.chainId) throw new DepositError(`${rpcUrl} is chain ${signer.chain.id}, the service settles on chain ${network.chainId}`);
  const hash = await signer.walletClient.writeContract({ address: token.address as Address, abi: erc20Abi, functionName: 'transfer', args: [network.custodyAddress as Address, raw] });
  const receipt = await signer.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new DepositError(`the transfer ${hash} reverted (does ${signer.account.address} hold ${input.amount} ${token.symbol} and gas?)`);
  return { txHash: hash, token: token.symbol, amount: input.amount, from: signer.account.address, custodyAddress: network.custodyAddress, blockNumber: receipt.blockNumber.toString() };
}

/** The deposit the service recorded for `txHash`, once it is COMPLETED (or the time is up: null). */
export async function depositCredited(client: RfqClient, txHash: string, timeoutMs: number): Promise<Deposit | null> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = (await client.deposits({ limit: 100 })).items.find((d) => d.txHash.toLowerCase() === txHash.toLowerCase());
    if (found && found.status !== 'PENDING') return found;
    if (Date.now() > until) return null;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
