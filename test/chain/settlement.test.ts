// permit2-mode settlement on a devnet: custody signs a witness permit, the maker's wrapper
// delivers the maker leg and relays the permit (DESIGN.md §5).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { domainSeparator, parseEventLogs, parseUnits, zeroAddress, type Address, type Hex } from 'viem';
import { permit2Abi, rfqMakerWrapperAbi, rfqMakerWrapperFactoryAbi } from '../../src/chain/artifacts/index.ts';
import { quoteHash, quoteNonce, rfqPermitTypedData } from '../../src/chain/permit.ts';
import { expectRevert, startFixture, type Fixture } from './helpers/fixture.ts';

// A long interval keeps interval-mined blocks from landing between a timestamp we set and the
// transaction we send; transactions are still mined at once (--mixed-mining).
let f: Fixture;
let wrapper: Address;
let otherWrapper: Address;
const PAY = parseUnits('2500', 6); // taker pays USDC (makerReceives)
const DELIVER = parseUnits('1', 18); // maker pays WETH (makerPays)

before(async () => {
  f = await startFixture({ blockTimeSecs: 3600 });
  const factory = f.deployed.wrapperFactoryAddress;
  await f.send(f.other, { address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'deploy', args: [f.maker.address] });
  await f.send(f.other, { address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'deploy', args: [f.other.address] });
  const wrapperOf = (a: Address) => f.publicClient.readContract({ address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'wrapperOf', args: [a] });
  wrapper = await wrapperOf(f.maker.address);
  otherWrapper = await wrapperOf(f.other.address);

  await f.approve(f.custody, 'USDC', f.deployed.permit2Address);
  await f.approve(f.custody, 'WETH', f.deployed.permit2Address);
  await f.mint('USDC', f.custody.address, PAY * 100n);
  await f.mint('WETH', f.maker.address, DELIVER * 100n);
  await f.approve(f.maker, 'WETH', wrapper);
});

after(() => f?.stop());

type Quote = { quoteId: string; amount?: bigint; deliverAmount?: bigint; deadline?: bigint; spender?: Address };

/** What the service does at selection: custody signs the permit for the winning maker's wrapper. */
async function signQuote(q: Quote) {
  const amount = q.amount ?? PAY;
  const deliverAmount = q.deliverAmount ?? DELIVER;
  const deadline = q.deadline ?? (await f.latestTimestamp()) + 600n;
  const typedData = rfqPermitTypedData({
    chainId: f.chain.id,
    permit2Address: f.deployed.permit2Address,
    token: f.token('USDC'),
    amount,
    spender: q.spender ?? wrapper,
    nonce: quoteNonce(q.quoteId),
    deadline,
    witness: { quoteHash: quoteHash(q.quoteId), deliverToken: f.token('WETH'), deliverAmount, deliverTo: f.custody.address },
  });
  const signature = await f.custody.signTypedData!(typedData);
  const permit = { permitted: { token: f.token('USDC'), amount }, nonce: quoteNonce(q.quoteId), deadline };
  return { permit, signature, deliverAmount, quoteHash: quoteHash(q.quoteId) };
}

/** What the maker does: relay through its wrapper. `deliverAmount` may be overridden to cheat. */
function settleArgs(s: Awaited<ReturnType<typeof signQuote>>, deliverAmount = s.deliverAmount) {
  return [s.permit, f.token('WETH'), deliverAmount, s.quoteHash, s.signature] as const;
}

const simulateSettle = (from: typeof f.maker, args: ReturnType<typeof settleArgs>, address: Address = wrapper) =>
  f.publicClient.simulateContract({ account: from, address, abi: rfqMakerWrapperAbi, functionName: 'settle', args });

async function balances() {
  return {
    makerUsdc: await f.balanceOf('USDC', f.maker.address),
    makerWeth: await f.balanceOf('WETH', f.maker.address),
    custodyUsdc: await f.balanceOf('USDC', f.custody.address),
    custodyWeth: await f.balanceOf('WETH', f.custody.address),
  };
}

describe('Permit2 at the canonical address', () => {
  it('has the Permit2 EIP-712 domain (name, chainId, verifyingContract; no version)', async () => {
    const onChain = await f.publicClient.readContract({ address: f.deployed.permit2Address, abi: permit2Abi, functionName: 'DOMAIN_SEPARATOR' });
    // viem derives EIP712Domain(string name,uint256 chainId,address verifyingContract) from the fields present.
    const expected = domainSeparator({ domain: { name: 'Permit2', chainId: f.chain.id, verifyingContract: f.deployed.permit2Address } });
    assert.equal(onChain, expected);
  });
});

describe('RfqMakerWrapper.settle', () => {
  it('happy path: maker gets the pay leg, custody gets the deliver leg, RfqSettled names both', async () => {
    const s = await signQuote({ quoteId: 'qt_happy' });
    const before = await balances();
    const receipt = await f.send(f.maker, { address: wrapper, abi: rfqMakerWrapperAbi, functionName: 'settle', args: settleArgs(s) });
    assert.equal(receipt.status, 'success');
    const after = await balances();
    assert.equal(after.makerUsdc - before.makerUsdc, PAY);
    assert.equal(before.makerWeth - after.makerWeth, DELIVER);
    assert.equal(before.custodyUsdc - after.custodyUsdc, PAY);
    assert.equal(after.custodyWeth - before.custodyWeth, DELIVER);

    const [event, ...rest] = parseEventLogs({ abi: rfqMakerWrapperAbi, logs: receipt.logs, eventName: 'RfqSettled' });
    assert.equal(rest.length, 0);
    assert.ok(event);
    assert.equal(event.address, wrapper.toLowerCase());
    assert.deepEqual(event.args, {
      quoteHash: quoteHash('qt_happy'),
      maker: f.maker.address,
      payToken: f.token('USDC'),
      payAmount: PAY,
      deliverToken: f.token('WETH'),
      deliverAmount: DELIVER,
    });

    // The nonce's bit is now burnt in custody's unordered-nonce bitmap.
    const nonce = quoteNonce('qt_happy');
    const word = await f.publicClient.readContract({ address: f.deployed.permit2Address, abi: permit2Abi, functionName: 'nonceBitmap', args: [f.custody.address, nonce >> 8n] });
    assert.equal((word >> (nonce & 0xffn)) & 1n, 1n);
  });

  it('cannot pay the maker without the maker leg: short allowance reverts and nothing moves', async () => {
    const s = await signQuote({ quoteId: 'qt_short_allowance' });
    await f.approve(f.maker, 'WETH', wrapper, DELIVER - 1n);
    try {
      await expectRevert(simulateSettle(f.maker, settleArgs(s)), 'ERC20InsufficientAllowance');
      // Also mine it (fixed gas skips estimation) to see the on-chain outcome.
      const before = await balances();
      const hash = await f.wallet(f.maker).writeContract({ address: wrapper, abi: rfqMakerWrapperAbi, functionName: 'settle', args: settleArgs(s), gas: 500_000n });
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash });
      assert.equal(receipt.status, 'reverted');
      assert.deepEqual(await balances(), before);
    } finally {
      await f.approve(f.maker, 'WETH', wrapper);
    }
    // The permit was not consumed: once the maker can deliver, it still settles.
    const receipt = await f.send(f.maker, { address: wrapper, abi: rfqMakerWrapperAbi, functionName: 'settle', args: settleArgs(s) });
    assert.equal(receipt.status, 'success');
  });

  it('a permit cannot be used twice', async () => {
    const s = await signQuote({ quoteId: 'qt_reuse' });
    await f.send(f.maker, { address: wrapper, abi: rfqMakerWrapperAbi, functionName: 'settle', args: settleArgs(s) });
    await expectRevert(simulateSettle(f.maker, settleArgs(s)), 'InvalidNonce');
  });

  it('only the owner may settle', async () => {
    const s = await signQuote({ quoteId: 'qt_not_owner' });
    await expectRevert(simulateSettle(f.other, settleArgs(s)), 'NotOwner');
  });

  it('a witness mismatch (less delivered than custody signed for) reverts', async () => {
    const s = await signQuote({ quoteId: 'qt_witness' });
    await expectRevert(simulateSettle(f.maker, settleArgs(s, DELIVER - 1n)), 'InvalidSigner');
    // A different token than signed: the maker holds and has approved enough USDC, so only the witness can stop it.
    await f.mint('USDC', f.maker.address, DELIVER);
    await f.approve(f.maker, 'USDC', wrapper);
    await expectRevert(
      simulateSettle(f.maker, [s.permit, f.token('USDC'), s.deliverAmount, s.quoteHash, s.signature]),
      'InvalidSigner',
    );
    await expectRevert(simulateSettle(f.maker, [s.permit, f.token('WETH'), s.deliverAmount, quoteHash('qt_other'), s.signature]), 'InvalidSigner');
  });

  it('a paid amount above the signed amount reverts', async () => {
    const s = await signQuote({ quoteId: 'qt_amount' });
    const inflated = { ...s.permit, permitted: { ...s.permit.permitted, amount: PAY + 1n } };
    await expectRevert(simulateSettle(f.maker, [inflated, f.token('WETH'), s.deliverAmount, s.quoteHash, s.signature]), 'InvalidSigner');
  });

  it('a permit for another spender cannot be relayed through this wrapper', async () => {
    const s = await signQuote({ quoteId: 'qt_spender', spender: otherWrapper });
    await expectRevert(simulateSettle(f.maker, settleArgs(s)), 'InvalidSigner');
  });

  it('settles in the deadline second itself, reverts one second later', async () => {
    const t = await f.latestTimestamp();
    const onTime = await signQuote({ quoteId: 'qt_deadline_ok', deadline: t + 100n });
    await f.testClient.setNextBlockTimestamp({ timestamp: t + 100n });
    const receipt = await f.send(f.maker, { address: wrapper, abi: rfqMakerWrapperAbi, functionName: 'settle', args: settleArgs(onTime) });
    assert.equal(receipt.status, 'success');
    assert.equal((await f.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp, t + 100n);

    const late = await signQuote({ quoteId: 'qt_deadline_late', deadline: (await f.latestTimestamp()) + 60n });
    await f.testClient.increaseTime({ seconds: 61 });
    await f.testClient.mine({ blocks: 1 });
    assert.ok((await f.latestTimestamp()) > late.permit.deadline);
    await expectRevert(simulateSettle(f.maker, settleArgs(late)), 'SignatureExpired');
  });

  it('custody can cancel an outstanding permit by invalidating its nonce', async () => {
    const s = await signQuote({ quoteId: 'qt_cancelled' });
    const nonce = quoteNonce('qt_cancelled');
    await f.send(f.custody, { address: f.deployed.permit2Address, abi: permit2Abi, functionName: 'invalidateUnorderedNonces', args: [nonce >> 8n, 1n << (nonce & 0xffn)] });
    await expectRevert(simulateSettle(f.maker, settleArgs(s)), 'InvalidNonce');
  });
});

describe('RfqMakerWrapperFactory', () => {
  it('records the wrapper, binds it to Permit2, custody and the owner, and refuses a second deploy', async () => {
    const factory = f.deployed.wrapperFactoryAddress;
    const read = <N extends 'owner' | 'custody' | 'permit2'>(functionName: N) =>
      f.publicClient.readContract({ address: wrapper, abi: rfqMakerWrapperAbi, functionName });
    assert.equal(await read('owner'), f.maker.address);
    assert.equal(await read('custody'), f.custody.address);
    assert.equal(await read('permit2'), f.deployed.permit2Address);
    await expectRevert(
      f.publicClient.simulateContract({ account: f.other, address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'deploy', args: [f.maker.address] }),
      'WrapperExists',
    );
    await expectRevert(
      f.publicClient.simulateContract({ account: f.other, address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'deploy', args: [zeroAddress] }),
      'ZeroOwner',
    );
  });

  it('emits WrapperDeployed(owner, wrapper) and anyone may deploy for an owner', async () => {
    const newMaker = f.account('maker-2').address;
    const factory = f.deployed.wrapperFactoryAddress;
    const receipt = await f.send(f.other, { address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'deploy', args: [newMaker] });
    const [event] = parseEventLogs({ abi: rfqMakerWrapperFactoryAbi, logs: receipt.logs, eventName: 'WrapperDeployed' });
    assert.ok(event);
    const recorded = await f.publicClient.readContract({ address: factory, abi: rfqMakerWrapperFactoryAbi, functionName: 'wrapperOf', args: [newMaker] });
    assert.deepEqual(event.args, { owner: newMaker, wrapper: recorded });
    const code: Hex | undefined = await f.publicClient.getCode({ address: recorded });
    assert.ok(code && code.length > 2);
  });
});
