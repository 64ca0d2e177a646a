// One devnet with the contracts deployed, plus named, funded keys. One per test file.
import {
  BaseError,
  ContractFunctionRevertedError,
  createTestClient,
  createWalletClient,
  decodeErrorResult,
  http,
  keccak256,
  maxUint256,
  parseEther,
  stringToHex,
  type Abi,
  type Account,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import assert from 'node:assert/strict';
import { startDevnet, type Devnet, type DevnetOptions } from '../../../src/chain/devnet.ts';
import { deployContracts, type DeployedContracts } from '../../../src/chain/deploy.ts';
import { connectChain, type ChainClients } from '../../../src/chain/clients.ts';
import {
  permit2Abi,
  rfqMakerWrapperAbi,
  rfqMakerWrapperFactoryAbi,
  testTokenAbi,
  xchangeAdapterAbi,
} from '../../../src/chain/artifacts/index.ts';

/** Deterministic test keys, so failures reproduce. */
export const keyOf = (name: string): Hex => keccak256(stringToHex(`rfq-service/test/${name}`));

export type Fixture = Awaited<ReturnType<typeof startFixture>>;

export async function startFixture(devnetOpts: DevnetOptions = {}) {
  const devnet: Devnet = await startDevnet(devnetOpts);
  try {
    const { chain, publicClient }: ChainClients = await connectChain(devnet.rpcUrl);
    const testClient = createTestClient({ chain, mode: 'anvil', transport: http(devnet.rpcUrl) });
    const account = (name: string): Account => privateKeyToAccount(keyOf(name));
    const wallet = (acct: Account) => createWalletClient({ account: acct, chain, transport: http(devnet.rpcUrl), pollingInterval: 100 });

    const deployer = account('deployer');
    const custody = account('custody');
    const maker = account('maker');
    const other = account('other');
    for (const a of [deployer, custody, maker, other]) {
      await testClient.setBalance({ address: a.address, value: parseEther('100') });
    }
    const deployed: DeployedContracts = await deployContracts({
      rpcUrl: devnet.rpcUrl,
      deployerKey: keyOf('deployer'),
      custodyAddress: custody.address,
      tokens: [
        { symbol: 'USDC', decimals: 6 },
        { symbol: 'WETH', decimals: 18 },
      ],
    });
    const token = (symbol: string): Address => {
      const t = deployed.tokens.find((x) => x.symbol === symbol);
      assert.ok(t, `token ${symbol}`);
      return t.address;
    };

    /** Sends a write and waits for a successful receipt. */
    async function send(
      from: Account,
      req: { address: Address; abi: Abi; functionName: string; args?: readonly unknown[]; gas?: bigint },
    ) {
      const hash = await wallet(from).writeContract(req as Parameters<ReturnType<typeof wallet>['writeContract']>[0]);
      return publicClient.waitForTransactionReceipt({ hash });
    }
    const mint = (symbol: string, to: Address, amount: bigint) =>
      send(deployer, { address: token(symbol), abi: testTokenAbi, functionName: 'mint', args: [to, amount] });
    const approve = (from: Account, symbol: string, spender: Address, amount: bigint = maxUint256) =>
      send(from, { address: token(symbol), abi: testTokenAbi, functionName: 'approve', args: [spender, amount] });
    const balanceOf = (symbol: string, owner: Address) =>
      publicClient.readContract({ address: token(symbol), abi: testTokenAbi, functionName: 'balanceOf', args: [owner] });
    const latestTimestamp = async () => (await publicClient.getBlock()).timestamp;

    return {
      devnet,
      chain,
      publicClient,
      testClient,
      wallet,
      account,
      deployer,
      custody,
      maker,
      other,
      deployed,
      token,
      send,
      mint,
      approve,
      balanceOf,
      latestTimestamp,
      stop: () => devnet.stop(),
    };
  } catch (err) {
    await devnet.stop();
    throw err;
  }
}

/** Every custom error any of our contracts (or OpenZeppelin's ERC-20) can revert with. */
const ALL_ERRORS = [permit2Abi, rfqMakerWrapperAbi, rfqMakerWrapperFactoryAbi, testTokenAbi, xchangeAdapterAbi]
  .flat()
  .filter((x) => x.type === 'error') as Abi;

/** Asserts the promise rejects with a revert carrying the named custom error (even from a nested call). */
export async function expectRevert(p: Promise<unknown>, errorName: string): Promise<void> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof BaseError, `expected a viem error, got ${String(err)}`);
    const revert = err.walk((e) => e instanceof ContractFunctionRevertedError);
    assert.ok(revert instanceof ContractFunctionRevertedError, `expected a contract revert, got: ${err.shortMessage}`);
    const name = revert.data?.errorName ?? (revert.raw ? decodeErrorResult({ abi: ALL_ERRORS, data: revert.raw }).errorName : undefined);
    assert.equal(name, errorName, `expected ${errorName}, got ${name ?? revert.shortMessage}`);
    return;
  }
  assert.fail(`expected revert ${errorName}, but it succeeded`);
}
