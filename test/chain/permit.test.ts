// Pure checks of src/chain/permit.ts and src/chain/xchange.ts against reference implementations.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeAbiParameters, getAddress, hashTypedData, parseAbiParameters, keccak256, recoverTypedDataAddress, toBytes, toHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import {
  RFQ_FILL_WITNESS_TYPE_STRING,
  quoteHash,
  quoteNonce,
  rfqFillWitnessHash,
  rfqPermitTypedData,
  rfqPermitTypes,
  swapMessageFromWire,
  xchangeSwapTypedData,
} from '../../src/chain/permit.ts';
import { PERMIT2_ADDRESS } from '../../src/chain/deploy.ts';
import { SignatureTransfer } from './helpers/permit2-sdk.ts';
import { keyOf } from './helpers/fixture.ts';

const addressArb = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(toHex(b)));
const bytes32Arb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => toHex(b));
const uint256Arb = fc.bigInt(0n, 2n ** 256n - 1n);

function sdkHash(p: {
  chainId: number;
  permit2Address: Address;
  token: Address;
  amount: bigint;
  spender: Address;
  nonce: bigint;
  deadline: bigint;
  witness: { quoteHash: Hex; deliverToken: Address; deliverAmount: bigint; deliverTo: Address };
}): string {
  return SignatureTransfer.hash(
    { permitted: { token: p.token, amount: p.amount.toString() }, spender: p.spender, nonce: p.nonce.toString(), deadline: p.deadline.toString() },
    p.permit2Address,
    p.chainId,
    {
      witnessTypeName: 'RfqFill',
      witnessType: { RfqFill: [...rfqPermitTypes.RfqFill] },
      witness: { ...p.witness, deliverAmount: p.witness.deliverAmount.toString() },
    },
  );
}

describe('rfqPermitTypedData', () => {
  it('hashes exactly as @uniswap/permit2-sdk SignatureTransfer.hash with the RfqFill witness', () => {
    fc.assert(
      fc.property(
        fc.record({
          chainId: fc.constantFrom(1, 10, 8453, 31337, 42161),
          permit2Address: fc.oneof(fc.constant(PERMIT2_ADDRESS), addressArb),
          token: addressArb,
          amount: uint256Arb,
          spender: addressArb,
          // The SDK refuses nonces/deadlines beyond its own (uint256/uint48-ish) maxima; stay inside them.
          nonce: fc.bigInt(0n, 2n ** 248n),
          deadline: fc.bigInt(0n, 2n ** 48n - 1n),
          witness: fc.record({ quoteHash: bytes32Arb, deliverToken: addressArb, deliverAmount: uint256Arb, deliverTo: addressArb }),
        }),
        (p) => {
          assert.equal(hashTypedData(rfqPermitTypedData(p)), sdkHash(p));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('hashes a realistic quote the same way (fixed vector)', () => {
    const quoteId = 'qt_01J9Z7Q8W3XKJ5V2D4B6N8M0PR';
    const p = {
      chainId: 31337,
      permit2Address: PERMIT2_ADDRESS,
      token: getAddress('0x1111111111111111111111111111111111111111'),
      amount: 2_500_000_000n,
      spender: getAddress('0x2222222222222222222222222222222222222222'),
      nonce: quoteNonce(quoteId),
      deadline: 1_900_000_000n,
      witness: {
        quoteHash: quoteHash(quoteId),
        deliverToken: getAddress('0x3333333333333333333333333333333333333333'),
        deliverAmount: 10n ** 18n,
        deliverTo: getAddress('0x4444444444444444444444444444444444444444'),
      },
    };
    assert.equal(hashTypedData(rfqPermitTypedData(p)), sdkHash(p));
  });

  it('uses the Permit2 domain (name, chainId, verifyingContract; no version)', () => {
    const td = rfqPermitTypedData({
      chainId: 8453,
      permit2Address: PERMIT2_ADDRESS,
      token: PERMIT2_ADDRESS,
      amount: 1n,
      spender: PERMIT2_ADDRESS,
      nonce: 1n,
      deadline: 1n,
      witness: { quoteHash: quoteHash('q'), deliverToken: PERMIT2_ADDRESS, deliverAmount: 1n, deliverTo: PERMIT2_ADDRESS },
    });
    assert.deepEqual(td.domain, { name: 'Permit2', chainId: 8453, verifyingContract: PERMIT2_ADDRESS });
    assert.equal(td.primaryType, 'PermitWitnessTransferFrom');
  });

  it('witness type string is the one in DESIGN.md and matches the typed-data types', () => {
    assert.equal(
      RFQ_FILL_WITNESS_TYPE_STRING,
      'RfqFill witness)RfqFill(bytes32 quoteHash,address deliverToken,uint256 deliverAmount,address deliverTo)TokenPermissions(address token,uint256 amount)',
    );
    const fields = rfqPermitTypes.RfqFill.map((f) => `${f.type} ${f.name}`).join(',');
    assert.ok(RFQ_FILL_WITNESS_TYPE_STRING.includes(`RfqFill(${fields})`));
  });

  it('rfqFillWitnessHash is keccak256(abi.encode(typehash, fields))', () => {
    const w = {
      quoteHash: quoteHash('qt_x'),
      deliverToken: getAddress('0x3333333333333333333333333333333333333333'),
      deliverAmount: 42n,
      deliverTo: getAddress('0x4444444444444444444444444444444444444444'),
    };
    const typeHash = keccak256(toBytes('RfqFill(bytes32 quoteHash,address deliverToken,uint256 deliverAmount,address deliverTo)'));
    const encoded = encodeAbiParameters(parseAbiParameters('bytes32, bytes32, address, uint256, address'), [
      typeHash,
      w.quoteHash,
      w.deliverToken,
      w.deliverAmount,
      w.deliverTo,
    ]);
    assert.equal(rfqFillWitnessHash(w), keccak256(encoded));
  });
});

describe('quoteHash / quoteNonce', () => {
  it('hash the UTF-8 bytes of the quote id; the nonce is the same 256 bits as an integer', () => {
    assert.equal(quoteHash(''), '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    assert.equal(quoteHash('qt_é'), keccak256(new Uint8Array([...Buffer.from('qt_é', 'utf8')])));
    const id = 'qt_0193f3a2-7c1e-7d3b-9a51-3c2f1e0d4b5a';
    assert.equal(quoteNonce(id), BigInt(quoteHash(id)));
  });
});

describe('xchangeSwapTypedData', () => {
  const message = swapMessageFromWire({
    quoteId: 'qt_swap_1',
    expiration: '1900000000',
    incomingTransfer: { token: '0x1111111111111111111111111111111111111111', from: '0x2222222222222222222222222222222222222222', to: '0x3333333333333333333333333333333333333333', amount: '1000000' },
    outgoingTransfer: { token: '0x4444444444444444444444444444444444444444', from: '0x3333333333333333333333333333333333333333', to: '0x2222222222222222222222222222222222222222', amount: '500000000000000000' },
  });

  it('round-trips a signature to the signer', async () => {
    const signer = privateKeyToAccount(keyOf('adapter-signer'));
    const td = xchangeSwapTypedData({ chainId: 31337, adapterAddress: getAddress('0x5555555555555555555555555555555555555555'), message });
    assert.deepEqual(td.domain, { name: 'RfqXchangeAdapter', version: '1', chainId: 31337, verifyingContract: '0x5555555555555555555555555555555555555555' });
    const signature = await signer.signTypedData(td);
    assert.equal(await recoverTypedDataAddress({ ...td, signature }), signer.address);
  });

  it('swapMessageFromWire rejects non-integers and bad addresses', () => {
    const wire = {
      quoteId: 'q',
      expiration: '1',
      incomingTransfer: { token: '0x1111111111111111111111111111111111111111', from: '0x1111111111111111111111111111111111111111', to: '0x1111111111111111111111111111111111111111', amount: '1' },
      outgoingTransfer: { token: '0x1111111111111111111111111111111111111111', from: '0x1111111111111111111111111111111111111111', to: '0x1111111111111111111111111111111111111111', amount: '1' },
    };
    assert.throws(() => swapMessageFromWire({ ...wire, expiration: '1.5' }));
    assert.throws(() => swapMessageFromWire({ ...wire, incomingTransfer: { ...wire.incomingTransfer, amount: '-1' } }));
    assert.throws(() => swapMessageFromWire({ ...wire, outgoingTransfer: { ...wire.outgoingTransfer, to: '0x1234' } }));
  });
});
