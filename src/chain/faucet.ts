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

/** As mintTestToken, with the amount already in raw units (the service parses with its money module). */
export async function mintRawTestToken(p: { rpcUrl: string; ownerKey: Hex; token: Address; to: Address; raw: bigint }): Promise<Hash> {
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
