// Devnet helpers behind `POST /admin/v1/devnet/faucet` and demo setup. Embedded stack only.
import { parseUnits, type Address, type Hash, type Hex } from 'viem';
import { testTokenAbi } from './artifacts/index.ts';
import { connectChain, connectSigner } from './clients.ts';

/**
 * Mints `amount` (decimal string, human units) of a TestToken to `to` and resolves with the
 * transaction hash once it is mined. `ownerKey` is the deployer key that owns the tokens.
 */
export async function mintTestToken(p: {
  rpcUrl: string;
  ownerKey: Hex;
  token: Address;
  decimals: number;
  to: Address;
  amount: string;
}): Promise<Hash> {
  return mintRawTestToken({ ...p, raw: parseUnits(p.amount, p.decimals) });
}

/**
 * One queue per (RPC endpoint, owner key): mints by the same key run one after another. Run
 * concurrently, two mints read the same pending nonce and the second is refused ("replacement
 * transaction underpriced"); mined one at a time, each reads the nonce the previous one left.
 */
const mintQueues = new Map<string, Promise<unknown>>();

function serialised<T>(key: string, run: () => Promise<T>): Promise<T> {
  const next = (mintQueues.get(key) ?? Promise.resolve()).then(run, run);
  const tail = next.catch(() => undefined);
  mintQueues.set(key, tail);
  // Forget an idle queue so the map does not grow with every devnet a process starts.
  void tail.then(() => { if (mintQueues.get(key) === tail) mintQueues.delete(key); });
  return next;
}

/** As mintTestToken, with the amount already in raw units (the service parses with its money module). */
export function mintRawTestToken(p: { rpcUrl: string; ownerKey: Hex; token: Address; to: Address; raw: bigint }): Promise<Hash> {
  return serialised(`${p.rpcUrl}\n${p.ownerKey}`, () => mintNow(p));
}

async function mintNow(p: { rpcUrl: string; ownerKey: Hex; token: Address; to: Address; raw: bigint }): Promise<Hash> {
  const c = await connectSigner(p.rpcUrl, p.ownerKey);
  const hash = await c.walletClient.writeContract({
    address: p.token,
    abi: testTokenAbi,
    functionName: 'mint',
    args: [p.to, p.raw],
  });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`mint reverted (tx ${hash})`);
  return hash;
}

/** Sets an account's ETH balance (anvil_setBalance), e.g. to fund generated keys for gas. */
export async function setDevnetBalance(p: { rpcUrl: string; address: Address; wei: bigint }): Promise<void> {
  const { publicClient } = await connectChain(p.rpcUrl);
  await (publicClient.request as (a: { method: string; params: unknown[] }) => Promise<unknown>)({
    method: 'anvil_setBalance',
    params: [p.address, `0x${p.wei.toString(16)}`],
  });
}
