/**
 * Settlement on a test chain, from the outside: a maker with its factory wrapper, inventory and
 * allowance, registered over the operator API; takers funded by adjustment plus the same tokens
 * minted to custody; and the maker's side of a permit2 settlement (relay through its wrapper),
 * exactly as an integrator would do it from a MakerQuote.
 */
import assert from 'node:assert/strict';
import { parseUnits, type Address, type Hex, type TransactionReceipt } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount } from 'viem/accounts';
import { rfqMakerWrapperAbi } from '../../src/chain/artifacts/index.ts';
import { connectSigner, type SigningChainClients } from '../../src/chain/clients.ts';
import { quoteHash, quoteNonce } from '../../src/chain/permit.ts';
import { RfqClient } from '../../src/client/rfq-client.ts';
import type { MakerQuote, Rfq } from '../../src/client/types.ts';
import { TEST_TOKENS, testAccount, type TestChain } from './chain.ts';
import { waitUntil } from './eventually.ts';
import type { Harness } from './harness.ts';

export const decimalsOf = (symbol: string): number => {
  const token = TEST_TOKENS.find((t) => t.symbol === symbol);
  if (!token) throw new Error(`no test token ${symbol}`);
  return token.decimals;
};
export const raw = (symbol: string, amount: string): bigint => parseUnits(amount, decimalsOf(symbol));

export interface ChainMaker {
  account: PrivateKeyAccount;
  client: RfqClient;
  wrapper: Address;
  signer: SigningChainClients;
  makerId: string;
}

/** A maker with gas, its wrapper, `inventory` (human units) minted and approved to the wrapper. */
export async function chainMaker(h: Pick<Harness, 'admin' | 'url'>, chain: TestChain, inventory: Record<string, string> = { ETH: '100', USDC: '1000000', BTC: '10' }): Promise<ChainMaker> {
  const key = generatePrivateKey();
  const account = testAccount(key);
  await chain.fundGas(account.address);
  const wrapper = await chain.wrapperFor(account.address);
  for (const [symbol, amount] of Object.entries(inventory)) {
    await chain.mint(symbol, account.address, raw(symbol, amount));
    await chain.approve(account, symbol, wrapper);
  }
  const { makerId } = await h.admin.putMaker(account.address, { active: true, pairs: ['ETH-USDC', 'BTC-USDC'], settlementModes: ['permit2'], spender: wrapper });
  const client = new RfqClient(h.url);
  await client.signIn(account);
  return { account, client, wrapper, signer: await connectSigner(chain.rpcUrl, key), makerId };
}

/** A signed-in taker credited `amounts` by adjustment, with the same tokens minted to custody. */
export async function fundedTaker(h: Pick<Harness, 'newUser' | 'fund'>, chain: TestChain, amounts: Record<string, string>) {
  const taker = await h.newUser();
  await h.fund(taker.account.address, amounts);
  for (const [symbol, amount] of Object.entries(amounts)) await chain.mint(symbol, chain.custody, raw(symbol, amount));
  return taker;
}

/** The maker's own view of its quote once it won (permit fields present). */
export async function winningQuote(maker: ChainMaker, quoteId: string): Promise<MakerQuote> {
  const q = await until(async () => (await maker.client.makerQuotes()).items.find((x) => x.quoteId === quoteId), (x) => x?.status === 'SELECTED');
  return q!;
}

/**
 * The maker relays the permit through its wrapper. Gas is fixed so nothing is simulated first:
 * a relay that must revert is mined and reverts, like a maker's late transaction would.
 */
export async function relay(chain: TestChain, maker: ChainMaker, q: MakerQuote): Promise<TransactionReceipt> {
  assert.ok(q.permitSignature && q.spender && q.settlementDeadline, `quote ${q.quoteId} has its permit fields`);
  const permit = {
    permitted: { token: chain.token(q.makerReceives.token), amount: raw(q.makerReceives.token, q.makerReceives.amount) },
    nonce: quoteNonce(q.quoteId),
    deadline: BigInt(q.settlementDeadline),
  };
  const hash = await maker.signer.walletClient.writeContract({
    address: q.spender as Address,
    abi: rfqMakerWrapperAbi,
    functionName: 'settle',
    args: [permit, chain.token(q.makerPays.token), raw(q.makerPays.token, q.makerPays.amount), quoteHash(q.quoteId), q.permitSignature as Hex],
    gas: 500_000n,
  });
  return maker.signer.publicClient.waitForTransactionReceipt({ hash });
}

export async function rfqReaches(client: RfqClient, rfqId: string, status: Rfq['status'], timeoutMs = 20_000): Promise<Rfq> {
  return waitUntil(() => client.getRfq(rfqId), (r) => r.status === status, `RFQ ${rfqId} ${status}`, { timeoutMs });
}

/** `waitUntil` without a name for what is awaited. */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  return waitUntil(read, done, 'condition', { timeoutMs });
}

export async function rpc<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  // Bounded: an RPC that never answers fails its caller instead of hanging it.
  const res = await fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(30_000) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export function balanceOf(balances: Array<{ token: string; available: string; locked: string }>, token: string) {
  const b = balances.find((x) => x.token === token) ?? { token, available: '0', locked: '0' };
  return { available: b.available, locked: b.locked };
}
