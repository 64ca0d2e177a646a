/**
 * A devnet for service-level chain tests: anvil with the contracts deployed (devnet-stack.ts),
 * plus helpers to act as a wallet on it. Pass `stack.settings` as a harness's `chain` and
 * `tokenAddresses(stack)` to seed the tokens with their on-chain addresses.
 */
import { keccak256, maxUint256, parseEther, stringToHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { rfqMakerWrapperFactoryAbi, testTokenAbi } from '../../src/chain/artifacts/index.ts';
import { connectSigner } from '../../src/chain/clients.ts';
import { startDevnetStack, type DevnetStack } from '../../src/chain/devnet-stack.ts';
import { setDevnetBalance } from '../../src/chain/faucet.ts';

export const TEST_TOKENS = [
  { symbol: 'USDC', decimals: 6 },
  { symbol: 'ETH', decimals: 18 },
  { symbol: 'BTC', decimals: 8 },
];

const keyOf = (name: string): Hex => keccak256(stringToHex(`rfq-service/service-test/${name}`));

export interface TestChain {
  stack: DevnetStack;
  rpcUrl: string;
  custody: Address;
  token(symbol: string): Address;
  tokenAddresses: Record<string, string>;
  /** Mints test tokens (raw units) to an address. */
  mint(symbol: string, to: Address, raw: bigint): Promise<void>;
  /** Gives an account gas money. */
  fundGas(address: Address): Promise<void>;
  balanceOf(symbol: string, owner: Address): Promise<bigint>;
  /** ERC-20 transfer signed by `from` (raw units); resolves with the mined tx hash. */
  transfer(from: PrivateKeyAccount, symbol: string, to: Address, raw: bigint): Promise<Hex>;
  approve(from: PrivateKeyAccount, symbol: string, spender: Address, raw?: bigint): Promise<void>;
  /** Deploys (once) the factory wrapper for `owner` and returns its address. */
  wrapperFor(owner: Address): Promise<Address>;
  stop(): Promise<void>;
}

export async function startTestChain(options: { blockTimeSecs?: number; confirmations?: number } = {}): Promise<TestChain> {
  const stack = await startDevnetStack({
    custodyKey: keyOf('custody'),
    deployerKey: keyOf('deployer'),
    tokens: TEST_TOKENS,
    ...options,
  });
  const rpcUrl = stack.settings.rpcUrl;
  const deployer = await connectSigner(rpcUrl, keyOf('deployer'));
  const token = (symbol: string): Address => {
    const t = stack.deployed.tokens.find((x) => x.symbol === symbol);
    if (!t) throw new Error(`no token ${symbol}`);
    return t.address;
  };
  const mined = async (c: typeof deployer, hash: Hex) => {
    const receipt = await c.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`tx ${hash} reverted`);
  };
  const signer = (account: PrivateKeyAccount) => {
    const key = (account as PrivateKeyAccount & { __key?: Hex }).__key;
    if (!key) throw new Error('use testAccount() so the chain helpers can sign as this account');
    return connectSigner(rpcUrl, key);
  };
  return {
    stack,
    rpcUrl,
    custody: privateKeyToAccount(keyOf('custody')).address,
    token,
    tokenAddresses: Object.fromEntries(stack.deployed.tokens.map((t) => [t.symbol, t.address])),
    async mint(symbol, to, raw) {
      await mined(deployer, await deployer.walletClient.writeContract({ address: token(symbol), abi: testTokenAbi, functionName: 'mint', args: [to, raw] }));
    },
    fundGas: (address) => setDevnetBalance({ rpcUrl, address, wei: parseEther('10') }),
    balanceOf: (symbol, owner) => deployer.publicClient.readContract({ address: token(symbol), abi: testTokenAbi, functionName: 'balanceOf', args: [owner] }),
    async transfer(from, symbol, to, raw) {
      const c = await signer(from);
      const hash = await c.walletClient.writeContract({ address: token(symbol), abi: testTokenAbi, functionName: 'transfer', args: [to, raw] });
      await mined(c, hash);
      return hash;
    },
    async approve(from, symbol, spender, raw = maxUint256) {
      const c = await signer(from);
      await mined(c, await c.walletClient.writeContract({ address: token(symbol), abi: testTokenAbi, functionName: 'approve', args: [spender, raw] }));
    },
    async wrapperFor(owner) {
      const factory = stack.settings.wrapperFactoryAddress;
      const read = () => deployer.publicClient.readContract({ address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'wrapperOf', args: [owner] });
      const existing = await read();
      if (existing !== '0x0000000000000000000000000000000000000000') return existing;
      await mined(deployer, await deployer.walletClient.writeContract({ address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'deploy', args: [owner] }));
      return read();
    },
    stop: () => stack.stop(),
  };
}

/** Custody's own key, for a test that must act as custody outside the broadcaster (before it signs anything). */
export const custodyTestAccount = (): PrivateKeyAccount => testAccount(keyOf('custody'));

/** A fresh wallet whose key the chain helpers can use to sign. */
export function testAccount(key?: Hex): PrivateKeyAccount {
  const privateKey = key ?? generatePrivateKey();
  return Object.assign(privateKeyToAccount(privateKey), { __key: privateKey });
}
