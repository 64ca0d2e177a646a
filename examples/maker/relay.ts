/**
 * Settling a won quote in permit2 mode (docs/maker-integration.md): the maker calls its own wrapper's
 * `settle(permit, deliverToken, deliverAmount, quoteHash, signature)`. The wrapper pulls our leg
 * (`makerPays`) from us by ERC-20 allowance, sends it to custody, and relays the service-signed
 * permit so Permit2 pays us the taker's leg (`makerReceives`) from custody, in one transaction.
 * Everything in the call is derived from the SELECTED MakerQuote alone.
 */
import { maxUint256, type Address, type Hex, type PublicClient, type WalletClient, type Account, type Chain, type Transport } from 'viem';
import { permit2Abi, rfqMakerWrapperAbi, testTokenAbi } from '../../src/chain/artifacts/index.ts';
import { quoteHash, quoteNonce } from '../../src/chain/permit.ts';
import { parseAmount } from '../../src/domain/money/index.ts';
import type { MakerQuote } from '../../src/client/types.ts';

/** The wrapper's ABI plus Permit2's and the token's errors, so a revert inside them is named. */
const SETTLE_ABI = [...rfqMakerWrapperAbi, ...permit2Abi.filter((item) => item.type === 'error'), ...testTokenAbi.filter((item) => item.type === 'error')];

export interface ChainToken {
  address: Address;
  decimals: number;
}

export interface RelayChain {
  publicClient: PublicClient<Transport, Chain>;
  walletClient: WalletClient<Transport, Chain, Account>;
}

export interface SettleCall {
  wrapper: Address;
  args: readonly [
    { permitted: { token: Address; amount: bigint }; nonce: bigint; deadline: bigint },
    Address,
    bigint,
    Hex,
    Hex,
  ];
}

/** The wrapper call for a SELECTED quote; null when the quote carries no permit (another mode). */
export function settleCall(quote: MakerQuote, tokens: ReadonlyMap<string, ChainToken>): SettleCall | null {
  if (!quote.permitSignature || !quote.spender || quote.settlementDeadline == null) return null;
  const pay = tokens.get(quote.makerReceives.token);
  const deliver = tokens.get(quote.makerPays.token);
  if (!pay || !deliver) throw new Error(`no on-chain address for ${quote.makerReceives.token} or ${quote.makerPays.token}`);
  const permit = {
    permitted: { token: pay.address, amount: parseAmount(quote.makerReceives.amount, pay.decimals, { field: 'makerReceives.amount' }) },
    nonce: quoteNonce(quote.quoteId),
    deadline: BigInt(quote.settlementDeadline),
  };
  const deliverAmount = parseAmount(quote.makerPays.amount, deliver.decimals, { field: 'makerPays.amount' });
  return { wrapper: quote.spender as Address, args: [permit, deliver.address, deliverAmount, quoteHash(quote.quoteId), quote.permitSignature as Hex] };
}

/** Lets the wrapper pull `amount` of `token` from us; approves the maximum once when short. */
export async function ensureAllowance(chain: RelayChain, token: Address, wrapper: Address, amount: bigint): Promise<Hex | null> {
  const owner = chain.walletClient.account.address;
  const allowance = await chain.publicClient.readContract({ address: token, abi: testTokenAbi, functionName: 'allowance', args: [owner, wrapper] });
  if (allowance >= amount) return null;
  const hash = await chain.walletClient.writeContract({ address: token, abi: testTokenAbi, functionName: 'approve', args: [wrapper, maxUint256] });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== 'success') throw new Error(`approve reverted (tx ${hash})`);
  return hash;
}

/**
 * Simulates first (a revert names its reason: `SignatureExpired`, `InvalidNonce` when already
 * settled, `ERC20InsufficientBalance` when our inventory is short), then sends and waits.
 * Resolves with the transaction hash of a successful settlement; throws on any failure.
 */
export async function relaySettlement(chain: RelayChain, call: SettleCall): Promise<Hex> {
  await ensureAllowance(chain, call.args[1], call.wrapper, call.args[2]);
  const { request } = await chain.publicClient.simulateContract({
    account: chain.walletClient.account,
    address: call.wrapper,
    abi: SETTLE_ABI,
    functionName: 'settle',
    args: call.args,
  });
  const hash = await chain.walletClient.writeContract(request);
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash, timeout: 30_000 });
  if (receipt.status !== 'success') throw new Error(`settle reverted on-chain (tx ${hash})`);
  return hash;
}
