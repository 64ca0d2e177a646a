// Deploys the project's contracts onto a devnet (DESIGN.md §5, "Chain").
//
// Deterministic: Uniswap's Permit2 is placed at the canonical address with anvil_setCode, its
// runtime code as its CREATE2 deployment there would leave it (permit2-code.ts); everything
// else goes through the standard CREATE2 deployer with a fixed salt, so addresses depend
// only on the bytecode and constructor arguments (custody, token symbol/decimals, deployer),
// never on the deployer's nonce. Idempotent: a contract whose address already holds code is
// left alone, so calling this again on a persisted chain sends no transactions.
import { concat, encodeDeployData, getContractAddress, keccak256, stringToHex, type Address, type Hex } from 'viem';
import {
  rfqMakerWrapperFactoryAbi,
  rfqMakerWrapperFactoryBytecode,
  testTokenAbi,
  testTokenBytecode,
  xchangeAdapterAbi,
  xchangeAdapterBytecode,
} from './artifacts/index.ts';
import { connectSigner, type SigningChainClients } from './clients.ts';
import { permit2RuntimeCode } from './permit2-code.ts';

export const PERMIT2_ADDRESS: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
/** Arachnid's deterministic-deployment proxy; anvil predeploys it. Calldata = salt ++ initcode. */
export const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920cA78FbF26c0B4956C';
export const CREATE2_DEPLOYER_RUNTIME: Hex =
  '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3';
export const DEPLOY_SALT: Hex = keccak256(stringToHex('rfq-service/devnet/v1'));

export type TokenSpec = { symbol: string; decimals: number };
export type DeployedToken = { symbol: string; address: Address; decimals: number };

export type DeployOptions = {
  rpcUrl: string;
  /** Pays for deployment and owns the test tokens (so it backs the faucet). Must hold ETH. */
  deployerKey: Hex;
  custodyAddress: Address;
  tokens: TokenSpec[];
  /** Makers to give a wrapper right away (the embedded stack's example/demo makers). */
  wrapperOwners?: Address[];
};

export type DeployedContracts = {
  permit2Address: Address;
  wrapperFactoryAddress: Address;
  xchangeAdapterAddress: Address;
  tokens: DeployedToken[];
  /** owner -> wrapper, for `wrapperOwners`. */
  wrappers: Record<Address, Address>;
};

async function hasCode(c: SigningChainClients, address: Address): Promise<boolean> {
  const code = await c.publicClient.getCode({ address });
  return code !== undefined && code !== '0x';
}

async function setCode(c: SigningChainClients, address: Address, code: Hex): Promise<void> {
  // Not in viem's typed RPC schema for a plain public client, hence the loose request.
  await (c.publicClient.request as (a: { method: string; params: unknown[] }) => Promise<unknown>)({
    method: 'anvil_setCode',
    params: [address, code],
  });
}

async function ensurePermit2(c: SigningChainClients): Promise<void> {
  const current = await c.publicClient.getCode({ address: PERMIT2_ADDRESS });
  const runtime = permit2RuntimeCode(await c.publicClient.getChainId(), PERMIT2_ADDRESS);
  if (current?.toLowerCase() === runtime.toLowerCase()) return;
  try {
    await setCode(c, PERMIT2_ADDRESS, runtime);
  } catch (err) {
    // Not anvil: the canonical Permit2 deployment is what is expected there.
    if (current && current !== '0x') return;
    throw new Error(`no Permit2 at ${PERMIT2_ADDRESS} and anvil_setCode failed: ${String(err)}`);
  }
}

async function ensureCreate2Deployer(c: SigningChainClients): Promise<void> {
  if (await hasCode(c, CREATE2_DEPLOYER)) return;
  await setCode(c, CREATE2_DEPLOYER, CREATE2_DEPLOYER_RUNTIME);
}

async function create2(c: SigningChainClients, initCode: Hex): Promise<Address> {
  const address = getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: DEPLOY_SALT, bytecode: initCode });
  if (await hasCode(c, address)) return address;
  const hash = await c.walletClient.sendTransaction({ to: CREATE2_DEPLOYER, data: concat([DEPLOY_SALT, initCode]) });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !(await hasCode(c, address))) {
    throw new Error(`CREATE2 deployment to ${address} failed (tx ${hash})`);
  }
  return address;
}

export async function deployContracts(opts: DeployOptions): Promise<DeployedContracts> {
  const c = await connectSigner(opts.rpcUrl, opts.deployerKey);
  await ensurePermit2(c);
  await ensureCreate2Deployer(c);

  const tokens: DeployedToken[] = [];
  for (const t of opts.tokens) {
    const initCode = encodeDeployData({
      abi: testTokenAbi,
      bytecode: testTokenBytecode,
      args: [`Test ${t.symbol}`, t.symbol, t.decimals, c.account.address],
    });
    tokens.push({ symbol: t.symbol, address: await create2(c, initCode), decimals: t.decimals });
  }

  const wrapperFactoryAddress = await create2(
    c,
    encodeDeployData({
      abi: rfqMakerWrapperFactoryAbi,
      bytecode: rfqMakerWrapperFactoryBytecode,
      args: [PERMIT2_ADDRESS, opts.custodyAddress],
    }),
  );
  const xchangeAdapterAddress = await create2(c, encodeDeployData({ abi: xchangeAdapterAbi, bytecode: xchangeAdapterBytecode }));

  const wrappers: Record<Address, Address> = {};
  for (const owner of opts.wrapperOwners ?? []) {
    wrappers[owner] = await ensureWrapper(c, wrapperFactoryAddress, owner);
  }

  return { permit2Address: PERMIT2_ADDRESS, wrapperFactoryAddress, xchangeAdapterAddress, tokens, wrappers };
}

async function ensureWrapper(c: SigningChainClients, factory: Address, owner: Address): Promise<Address> {
  const read = () => c.publicClient.readContract({ address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'wrapperOf', args: [owner] });
  const existing = await read();
  if (existing !== '0x0000000000000000000000000000000000000000') return existing;
  const hash = await c.walletClient.writeContract({ address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'deploy', args: [owner] });
  const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`wrapper deployment for ${owner} failed (tx ${hash})`);
  return read();
}
