// Uniswap's Permit2 on the devnet on its own: the plain (no-witness) path, signature forms,
// and a permit built by @uniswap/permit2-sdk being accepted on chain.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseSignature, parseUnits, serializeCompactSignature, signatureToCompactSignature, toFunctionSelector, type Hex } from 'viem';
import { permit2Abi } from '../../src/chain/artifacts/index.ts';
import { expectRevert, startFixture, type Fixture } from './helpers/fixture.ts';
import { SignatureTransfer } from './helpers/permit2-sdk.ts';

let f: Fixture;
const AMOUNT = parseUnits('100', 6);

before(async () => {
  f = await startFixture({ blockTimeSecs: 3600 });
  await f.mint('USDC', f.custody.address, AMOUNT * 100n);
  await f.approve(f.custody, 'USDC', f.deployed.permit2Address);
});

after(() => f?.stop());

/** A plain PermitTransferFrom for `other` as spender, typed data taken from the Uniswap SDK. */
async function sdkPermit(nonce: bigint, amount = AMOUNT) {
  const deadline = (await f.latestTimestamp()) + 600n;
  const permit = { permitted: { token: f.token('USDC'), amount }, spender: f.other.address, nonce, deadline };
  const data = SignatureTransfer.getPermitData(
    { ...permit, permitted: { ...permit.permitted, amount: amount.toString() }, nonce: nonce.toString(), deadline: deadline.toString() },
    f.deployed.permit2Address,
    f.chain.id,
  );
  const signature = await f.custody.signTypedData!({
    domain: data.domain as { name: string; chainId: number; verifyingContract: `0x${string}` },
    types: data.types,
    primaryType: 'PermitTransferFrom',
    message: permit,
  });
  return { permit: { permitted: permit.permitted, nonce, deadline }, signature };
}

const transfer = (p: Awaited<ReturnType<typeof sdkPermit>>['permit'], requestedAmount: bigint, signature: Hex) =>
  f.publicClient.simulateContract({
    account: f.other,
    address: f.deployed.permit2Address,
    abi: permit2Abi,
    functionName: 'permitTransferFrom',
    args: [p, { to: f.other.address, requestedAmount }, f.custody.address, signature],
  });

describe('Permit2 ABI', () => {
  // Selectors of the deployed canonical Permit2 (0x000000000022D473030F116dDEE9F6B43aC78BA3) that
  // settlement uses. (The ABI bundled in @uniswap/permit2-sdk is a pre-release one and does not match it.)
  it('function selectors, events and errors of its SignatureTransfer are the canonical ones', () => {
    const selectors = new Set(permit2Abi.filter((x) => x.type === 'function').map((x) => `${x.name} ${toFunctionSelector(x)}`));
    for (const s of [
      'DOMAIN_SEPARATOR 0x3644e515',
      'invalidateUnorderedNonces 0x3ff9dcb1',
      'nonceBitmap 0x4fe02b44',
      'permitTransferFrom 0x30f28b7a',
      'permitWitnessTransferFrom 0x137c29fe',
    ]) {
      assert.ok(selectors.has(s), s);
    }
    const signatures = permit2Abi
      .filter((x) => x.type === 'error' || x.type === 'event')
      .map((x) => `${x.name}(${x.inputs.map((i) => i.type).join(',')})`)
      .sort();
    for (const sig of [
      'InvalidAmount(uint256)',
      'InvalidContractSignature()',
      'InvalidNonce()',
      'InvalidSignature()',
      'InvalidSignatureLength()',
      'InvalidSigner()',
      'SignatureExpired(uint256)',
      'UnorderedNonceInvalidation(address,uint256,uint256)',
    ]) {
      assert.ok(signatures.includes(sig), sig);
    }
  });
});

describe('Permit2 permitTransferFrom', () => {
  it('accepts a permit signed over the SDK-built typed data, for up to the permitted amount', async () => {
    const { permit, signature } = await sdkPermit(1n);
    const before = await f.balanceOf('USDC', f.other.address);
    await f.send(f.other, {
      address: f.deployed.permit2Address,
      abi: permit2Abi,
      functionName: 'permitTransferFrom',
      args: [permit, { to: f.other.address, requestedAmount: AMOUNT - 1n }, f.custody.address, signature],
    });
    assert.equal((await f.balanceOf('USDC', f.other.address)) - before, AMOUNT - 1n);
    await expectRevert(transfer(permit, 1n, signature), 'InvalidNonce');
  });

  it('rejects more than permitted', async () => {
    const { permit, signature } = await sdkPermit(2n);
    await expectRevert(transfer(permit, AMOUNT + 1n, signature), 'InvalidAmount');
  });

  it('accepts a 64-byte EIP-2098 signature and rejects other lengths', async () => {
    const { permit, signature } = await sdkPermit(3n);
    const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)));
    assert.equal((compact.length - 2) / 2, 64);
    await expectRevert(transfer(permit, AMOUNT, `${signature}00`), 'InvalidSignatureLength');
    const { request } = await transfer(permit, AMOUNT, compact);
    assert.equal(request.functionName, 'permitTransferFrom');
  });

  it('rejects a signature by someone other than the owner', async () => {
    const { permit } = await sdkPermit(4n);
    const forged = await f.other.signTypedData!({
      domain: { name: 'Permit2', chainId: f.chain.id, verifyingContract: f.deployed.permit2Address },
      types: {
        PermitTransferFrom: [
          { name: 'permitted', type: 'TokenPermissions' },
          { name: 'spender', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
        TokenPermissions: [
          { name: 'token', type: 'address' },
          { name: 'amount', type: 'uint256' },
        ],
      },
      primaryType: 'PermitTransferFrom',
      message: { ...permit, spender: f.other.address },
    });
    await expectRevert(transfer(permit, AMOUNT, forged), 'InvalidSigner');
  });

  it('nonces are an unordered bitmap: word = nonce >> 8, bit = nonce & 0xff', async () => {
    const nonce = (5n << 8n) | 7n;
    const { permit, signature } = await sdkPermit(nonce);
    await f.send(f.other, {
      address: f.deployed.permit2Address,
      abi: permit2Abi,
      functionName: 'permitTransferFrom',
      args: [permit, { to: f.other.address, requestedAmount: 1n }, f.custody.address, signature],
    });
    const word = await f.publicClient.readContract({ address: f.deployed.permit2Address, abi: permit2Abi, functionName: 'nonceBitmap', args: [f.custody.address, 5n] });
    assert.equal(word, 1n << 7n);
  });
});
