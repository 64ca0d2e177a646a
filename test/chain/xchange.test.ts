// xchange-mode settlement on a devnet: the maker's adapter signer signs a swap message and
// custody executes both legs atomically through XchangeAdapter.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hashTypedData, keccak256, parseEventLogs, parseUnits, stringToHex, type Address } from 'viem';
import { xchangeAdapterAbi } from '../../src/chain/artifacts/index.ts';
import { xchangeSwapTypedData, type SwapMessage } from '../../src/chain/xchange.ts';
import { expectRevert, startFixture, type Fixture } from './helpers/fixture.ts';

let f: Fixture;
let adapter: Address;
const signer = () => f.account('adapter-signer');
const PAY = parseUnits('2500', 6); // custody -> maker, USDC
const DELIVER = parseUnits('1', 18); // maker -> custody, WETH

before(async () => {
  f = await startFixture({ blockTimeSecs: 3600 });
  adapter = f.deployed.xchangeAdapterAddress;
  await f.mint('USDC', f.custody.address, PAY * 100n);
  await f.mint('WETH', f.maker.address, DELIVER * 100n);
  await f.approve(f.custody, 'USDC', adapter);
  await f.approve(f.maker, 'WETH', adapter);
  // The maker lets its adapter key sign swaps that move the maker's funds.
  await f.send(f.maker, { address: adapter, abi: xchangeAdapterAbi, functionName: 'setSigner', args: [signer().address, true] });
});

after(() => f?.stop());

async function swap(quoteId: string, opts: { expiration?: bigint; deliver?: bigint; pay?: bigint } = {}): Promise<SwapMessage> {
  return {
    quoteId,
    expiration: opts.expiration ?? (await f.latestTimestamp()) + 60n,
    incomingTransfer: { token: f.token('WETH'), from: f.maker.address, to: f.custody.address, amount: opts.deliver ?? DELIVER },
    outgoingTransfer: { token: f.token('USDC'), from: f.custody.address, to: f.maker.address, amount: opts.pay ?? PAY },
  };
}

const typedData = (message: SwapMessage) => xchangeSwapTypedData({ chainId: f.chain.id, adapterAddress: adapter, message });
const sign = (message: SwapMessage, by = signer()) => by.signTypedData!(typedData(message));
const simulateExecute = (from: typeof f.custody, message: SwapMessage, signature: `0x${string}`) =>
  f.publicClient.simulateContract({ account: from, address: adapter, abi: xchangeAdapterAbi, functionName: 'execute', args: [message, signature] });

describe('XchangeAdapter', () => {
  it('computes the same EIP-712 digest as xchangeSwapTypedData', async () => {
    const message = await swap('qt_digest');
    const onChain = await f.publicClient.readContract({ address: adapter, abi: xchangeAdapterAbi, functionName: 'swapDigest', args: [message] });
    assert.equal(onChain, hashTypedData(typedData(message)));
  });

  it('happy path: both legs move in one transaction and XchangeSettled is emitted', async () => {
    const message = await swap('qt_x_happy');
    const signature = await sign(message);
    const before = { makerUsdc: await f.balanceOf('USDC', f.maker.address), custodyWeth: await f.balanceOf('WETH', f.custody.address) };
    const receipt = await f.send(f.custody, { address: adapter, abi: xchangeAdapterAbi, functionName: 'execute', args: [message, signature] });
    assert.equal(receipt.status, 'success');
    assert.equal((await f.balanceOf('USDC', f.maker.address)) - before.makerUsdc, PAY);
    assert.equal((await f.balanceOf('WETH', f.custody.address)) - before.custodyWeth, DELIVER);

    const [event] = parseEventLogs({ abi: xchangeAdapterAbi, logs: receipt.logs, eventName: 'XchangeSettled' });
    assert.ok(event);
    assert.deepEqual(event.args, {
      quoteHash: keccak256(stringToHex('qt_x_happy')),
      signer: signer().address,
      executor: f.custody.address,
      quoteId: 'qt_x_happy',
      incomingTransfer: message.incomingTransfer,
      outgoingTransfer: message.outgoingTransfer,
    });
    assert.equal(
      await f.publicClient.readContract({ address: adapter, abi: xchangeAdapterAbi, functionName: 'quoteUsed', args: [keccak256(stringToHex('qt_x_happy'))] }),
      true,
    );
  });

  it('refuses a quoteId already executed, even with a fresh signature', async () => {
    const message = await swap('qt_x_reuse');
    await f.send(f.custody, { address: adapter, abi: xchangeAdapterAbi, functionName: 'execute', args: [message, await sign(message)] });
    await expectRevert(simulateExecute(f.custody, message, await sign(message)), 'QuoteAlreadyUsed');
    const resigned = { ...message, expiration: message.expiration + 1n };
    await expectRevert(simulateExecute(f.custody, resigned, await sign(resigned)), 'QuoteAlreadyUsed');
  });

  it('executes in the expiration second, refuses after it', async () => {
    const t = await f.latestTimestamp();
    const onTime = await swap('qt_x_on_time', { expiration: t + 100n });
    await f.testClient.setNextBlockTimestamp({ timestamp: t + 100n });
    const receipt = await f.send(f.custody, { address: adapter, abi: xchangeAdapterAbi, functionName: 'execute', args: [onTime, await sign(onTime)] });
    assert.equal(receipt.status, 'success');

    const late = await swap('qt_x_late', { expiration: (await f.latestTimestamp()) + 30n });
    const signature = await sign(late);
    await f.testClient.increaseTime({ seconds: 31 });
    await f.testClient.mine({ blocks: 1 });
    await expectRevert(simulateExecute(f.custody, late, signature), 'SwapExpired');
  });

  it('refuses a signer no party registered, and a tampered message', async () => {
    const message = await swap('qt_x_unregistered');
    await expectRevert(simulateExecute(f.custody, message, await sign(message, f.account('stranger'))), 'SignerNotRegistered');
    const signature = await sign(message);
    await expectRevert(simulateExecute(f.custody, { ...message, incomingTransfer: { ...message.incomingTransfer, amount: 1n } }, signature), 'SignerNotRegistered');
  });

  it("refuses to move custody's funds unless custody itself executes", async () => {
    const message = await swap('qt_x_maker_relays');
    const signature = await sign(message);
    await expectRevert(simulateExecute(f.maker, message, signature), 'TransferNotAuthorised');
    await expectRevert(simulateExecute(f.other, message, signature), 'TransferNotAuthorised');
  });

  it('reverts atomically when the second leg cannot move: the first leg is undone', async () => {
    const message = await swap('qt_x_short', { pay: PAY * 1000n }); // more USDC than custody holds
    const signature = await sign(message);
    await expectRevert(simulateExecute(f.custody, message, signature), 'ERC20InsufficientBalance');
    const balances = async () => [await f.balanceOf('WETH', f.maker.address), await f.balanceOf('WETH', f.custody.address)];
    const before = await balances();
    const hash = await f.wallet(f.custody).writeContract({ address: adapter, abi: xchangeAdapterAbi, functionName: 'execute', args: [message, signature], gas: 500_000n });
    assert.equal((await f.publicClient.waitForTransactionReceipt({ hash })).status, 'reverted');
    assert.deepEqual(await balances(), before);
  });
});
