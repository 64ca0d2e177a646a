/**
 * The participants' own wallets on the simulated chain, acting as integrators would: makers with
 * their factory wrapper, inventory approved to it, relaying the permits they won; takers holding
 * tokens they deposit by plain transfers to custody and receiving their withdrawals. Transactions
 * of one account are sent back to back (nonces from the pending block) and awaited together, so
 * setting up a run costs a few blocks, not one block per transaction.
 */
import { getAddress, parseUnits, type Address, type Hex, type LocalAccount, type TransactionReceipt } from 'viem';
import { rfqMakerWrapperAbi, rfqMakerWrapperFactoryAbi, testTokenAbi, xchangeAdapterAbi } from '../../src/chain/artifacts/index.ts';
import { connectSigner, type SigningChainClients } from '../../src/chain/clients.ts';
import { quoteHash, quoteNonce } from '../../src/chain/permit.ts';
import type { MakerQuote, XchangeBundle } from '../../src/client/types.ts';
import { swapMessageFromWire, xchangeSwapTypedData } from '../../src/chain/xchange.ts';
import type { SimChain } from './chain.ts';
import { TOKENS, type Token } from './model.ts';

/** What each maker holds on chain at the start (human units). */
export const MAKER_INVENTORY: Record<Token, string> = { USDC: '50000000', ETH: '20000', BTC: '1000' };
/** What each taker's wallet holds at the start, before its opening deposits. */
export const TAKER_STASH: Record<Token, string> = { USDC: '5000000', ETH: '1000', BTC: '50' };

/** anvil mines a block a second: a wallet's transaction unmined this long is a failure, not a wait. */
const RECEIPT_TIMEOUT_MS = 60_000;

export const rawOf = (token: Token, amount: string): bigint => parseUnits(amount, TOKENS[token]);

export class Wallet {
  readonly address: Address;
  readonly signer: SigningChainClients;
  /** The maker's factory wrapper (its permit2 spender). */
  wrapper: Address | null = null;

  private constructor(signer: SigningChainClients) {
    this.signer = signer;
    this.address = signer.account.address;
  }

  /** Connected straight to anvil: a user's wallet does not go through the nodes' RPC. */
  static async connect(chain: SimChain, key: Hex): Promise<Wallet> {
    return new Wallet(await connectSigner(chain.test.rpcUrl, key));
  }

  async tokenBalance(chain: SimChain, token: Token): Promise<bigint> {
    return this.signer.publicClient.readContract({ address: getAddress(chain.test.token(token)), abi: testTokenAbi, functionName: 'balanceOf', args: [this.address] });
  }

  async transfer(chain: SimChain, token: Token, to: Address, raw: bigint): Promise<Hex> {
    return this.signer.walletClient.writeContract({ address: getAddress(chain.test.token(token)), abi: testTokenAbi, functionName: 'transfer', args: [to, raw] });
  }

  async receipt(hash: Hex): Promise<TransactionReceipt> {
    return this.signer.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 200, timeout: RECEIPT_TIMEOUT_MS });
  }

  /**
   * A promised delivery: the maker's leg (`makerPays`, exact raw amount) sent to custody from the
   * maker's own address; inside the quote's window it settles the RFQ, outside it is a deposit.
   */
  async deliver(chain: SimChain, q: MakerQuote): Promise<Hex> {
    return this.transfer(chain, q.makerPays.token as Token, chain.custody, rawOf(q.makerPays.token as Token, q.makerPays.amount));
  }

  /**
   * Relays the permit of a quote this maker won through its wrapper. `tamper` raises the permitted
   * amount by one unit, so the custody signature no longer covers it and Permit2 reverts (a relay
   * that fails). Gas is fixed so nothing is simulated first: a bad relay is mined and reverts.
   */
  async relay(chain: SimChain, q: MakerQuote, tamper: boolean): Promise<Hex> {
    if (!q.permitSignature || !q.spender || !q.settlementDeadline) throw new Error(`quote ${q.quoteId} has no permit fields`);
    const leg = (l: { token: string; amount: string }) => rawOf(l.token as Token, l.amount);
    const permit = {
      permitted: { token: getAddress(chain.test.token(q.makerReceives.token)), amount: leg(q.makerReceives) + (tamper ? 1n : 0n) },
      nonce: quoteNonce(q.quoteId),
      deadline: BigInt(q.settlementDeadline),
    };
    return this.signer.walletClient.writeContract({
      address: getAddress(q.spender),
      abi: rfqMakerWrapperAbi,
      functionName: 'settle',
      args: [permit, getAddress(chain.test.token(q.makerPays.token)), leg(q.makerPays), quoteHash(q.quoteId), q.permitSignature as Hex],
      gas: 500_000n,
    });
  }
}

/**
 * Gas for everyone, a wrapper for each maker, the makers' inventory (approved to the wrapper and
 * to the xchange adapter, which the maker lets its adapter signer use) and the takers' stash
 * minted: the deployer's transactions back to back, then each wallet's own.
 */
export async function equipWallets(chain: SimChain, makers: Array<{ wallet: Wallet; adapterSigner: Address }>, takers: Wallet[]): Promise<void> {
  const adapter = chain.test.stack.settings.xchangeAdapterAddress;
  for (const w of [...makers.map((m) => m.wallet), ...takers]) await chain.test.fundGas(w.address);
  const deployer = await connectSigner(chain.test.rpcUrl, chain.test.stack.settings.faucetKey!);
  const factory = chain.test.stack.settings.wrapperFactoryAddress;
  const sent: Hex[] = [];
  for (const { wallet: m } of makers) sent.push(await deployer.walletClient.writeContract({ address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'deploy', args: [m.address] }));
  const mint = async (to: Address, holdings: Record<Token, string>) => {
    for (const token of Object.keys(TOKENS) as Token[]) {
      sent.push(await deployer.walletClient.writeContract({ address: getAddress(chain.test.token(token)), abi: testTokenAbi, functionName: 'mint', args: [to, rawOf(token, holdings[token])] }));
    }
  };
  for (const { wallet: m } of makers) await mint(m.address, MAKER_INVENTORY);
  for (const t of takers) await mint(t.address, TAKER_STASH);
  await mined(deployer, sent);
  await Promise.all(makers.map(async ({ wallet: m, adapterSigner }) => {
    m.wrapper = await deployer.publicClient.readContract({ address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'wrapperOf', args: [m.address] });
    const approvals: Hex[] = [];
    for (const token of Object.keys(TOKENS) as Token[]) {
      for (const spender of adapter ? [m.wrapper, adapter] : [m.wrapper]) {
        approvals.push(await m.signer.walletClient.writeContract({ address: getAddress(chain.test.token(token)), abi: testTokenAbi, functionName: 'approve', args: [spender, 2n ** 256n - 1n] }));
      }
    }
    if (adapter) approvals.push(await m.signer.walletClient.writeContract({ address: adapter, abi: xchangeAdapterAbi, functionName: 'setSigner', args: [adapterSigner, true] }));
    await mined(m.signer, approvals);
  }));
}

async function mined(c: SigningChainClients, hashes: Hex[]): Promise<void> {
  for (const hash of hashes) {
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 200, timeout: RECEIPT_TIMEOUT_MS });
    if (receipt.status !== 'success') throw new Error(`set-up transaction ${hash} reverted`);
  }
}

/**
 * A maker's xchange bundle for a quote's legs (DESIGN 5): its leg (`makerPays`) from the maker to
 * custody, its price (`makerReceives`) from custody to the maker, raw units, expiring at the RFQ's
 * settlement deadline, signed by the maker's adapter signer.
 */
export async function xchangeBundle(chain: SimChain, p: { quoteId: string; expiration: number; maker: Address; signer: LocalAccount; makerPays: { token: string; amount: string }; makerReceives: { token: string; amount: string } }): Promise<XchangeBundle> {
  const adapter = chain.test.stack.settings.xchangeAdapterAddress!;
  const swapMessage = {
    quoteId: p.quoteId,
    expiration: String(p.expiration),
    incomingTransfer: { token: getAddress(chain.test.token(p.makerPays.token)), from: getAddress(p.maker), to: chain.custody, amount: rawOf(p.makerPays.token as Token, p.makerPays.amount).toString() },
    outgoingTransfer: { token: getAddress(chain.test.token(p.makerReceives.token)), from: chain.custody, to: getAddress(p.maker), amount: rawOf(p.makerReceives.token as Token, p.makerReceives.amount).toString() },
  };
  const typed = xchangeSwapTypedData({ chainId: await chain.chainId(), adapterAddress: adapter, message: swapMessageFromWire(swapMessage) });
  return { adapter: 'RfqXchangeAdapter', settlement: { swapMessage, adapterSignature: await p.signer.signTypedData(typed) } };
}
