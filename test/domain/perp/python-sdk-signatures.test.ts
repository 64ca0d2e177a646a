/**
 * The venue's official Python SDK's L1 signing vectors (`tests/signing_test.py` in
 * `hyperliquid-dex/hyperliquid-python-sdk`, commit 7ee976d123b1e04295e4a1e37a424ca6a13bef88),
 * with `r` and `s` exactly as the SDK writes them: without leading zeros, so some have 62 or 63
 * hex digits. Each recovers the SDK's test key through the service's own recovery, and the
 * envelope the SDK posts (`vaultAddress: null`, `expiresAfter: null`) passes the strict reading.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { privateKeyToAccount } from 'viem/accounts';
import { recoverL1Signer } from '../../../src/domain/perp/recover-signer.ts';
import { readSignedAction } from '../../../src/domain/perp/signed-action.ts';
import type { PerpOrderDefect, SignedVenueAction, VenueNetwork } from '../../../src/domain/perp/types.ts';

const SDK_KEY = '0x0123456789012345678901234567890123456789012345678901234567890123';
const SDK_ADDRESS = privateKeyToAccount(SDK_KEY).address;

type Vector = { test: string; action: Record<string, unknown>; sigs: Record<VenueNetwork, { r: string; s: string; v: 27 | 28 }> };

const order = (c?: string) => ({ type: 'order', orders: [{ a: 1, b: true, p: '100', s: '100', r: false, t: { limit: { tif: 'Gtc' } }, ...(c ? { c } : {}) }], grouping: 'na' });

const VECTORS: Vector[] = [
  {
    test: 'test_l1_action_signing_matches',
    action: { type: 'dummy', num: 100_000_000_000 }, // float_to_int_for_hashing(1000)
    sigs: {
      mainnet: { r: '0x53749d5b30552aeb2fca34b530185976545bb22d0b3ce6f62e31be961a59298', s: '0x755c40ba9bf05223521753995abb2f73ab3229be8ec921f350cb447e384d8ed8', v: 27 },
      testnet: { r: '0x542af61ef1f429707e3c76c5293c80d01f74ef853e34b76efffcb57e574f9510', s: '0x17b8b32f086e8cdede991f1e2c529f5dd5297cbe8128500e00cbaf766204a613', v: 28 },
    },
  },
  {
    test: 'test_l1_action_signing_order_matches',
    action: order(),
    sigs: {
      mainnet: { r: '0xd65369825a9df5d80099e513cce430311d7d26ddf477f5b3a33d2806b100d78e', s: '0x2b54116ff64054968aa237c20ca9ff68000f977c93289157748a3162b6ea940e', v: 28 },
      testnet: { r: '0x82b2ba28e76b3d761093aaded1b1cdad4960b3af30212b343fb2e6cdfa4e3d54', s: '0x6b53878fc99d26047f4d7e8c90eb98955a109f44209163f52d8dc4278cbbd9f5', v: 27 },
    },
  },
  {
    test: 'test_l1_action_signing_order_with_cloid_matches',
    action: order('0x00000000000000000000000000000001'),
    sigs: {
      mainnet: { r: '0x41ae18e8239a56cacbc5dad94d45d0b747e5da11ad564077fcac71277a946e3', s: '0x3c61f667e747404fe7eea8f90ab0e76cc12ce60270438b2058324681a00116da', v: 27 },
      testnet: { r: '0xeba0664bed2676fc4e5a743bf89e5c7501aa6d870bdb9446e122c9466c5cd16d', s: '0x7f3e74825c9114bc59086f1eebea2928c190fdfbfde144827cb02b85bbe90988', v: 28 },
    },
  },
  {
    test: 'test_create_sub_account_action',
    action: { type: 'createSubAccount', name: 'example' },
    sigs: {
      mainnet: { r: '0x51096fe3239421d16b671e192f574ae24ae14329099b6db28e479b86cdd6caa7', s: '0xb71f7d293af92d3772572afb8b102d167a7cef7473388286bc01f52a5c5b423', v: 27 },
      testnet: { r: '0xa699e3ed5c2b89628c746d3298b5dc1cca604694c2c855da8bb8250ec8014a5b', s: '0x53f1b8153a301c72ecc655b1c315d64e1dcea3ee58921fd7507e35818fcc1584', v: 28 },
    },
  },
  {
    test: 'test_sub_account_transfer_action',
    action: { type: 'subAccountTransfer', subAccountUser: '0x1d9470d4b963f552e6f671a81619d395877bf409', isDeposit: true, usd: 10 },
    sigs: {
      mainnet: { r: '0x43592d7c6c7d816ece2e206f174be61249d651944932b13343f4d13f306ae602', s: '0x71a926cb5c9a7c01c3359ec4c4c34c16ff8107d610994d4de0e6430e5cc0f4c9', v: 28 },
      testnet: { r: '0xe26574013395ad55ee2f4e0575310f003c5bb3351b5425482e2969fa51543927', s: '0xefb08999196366871f919fd0e138b3a7f30ee33e678df7cfaf203e25f0a4278', v: 28 },
    },
  },
  {
    test: 'test_schedule_cancel_action',
    action: { type: 'scheduleCancel', time: 123456789 },
    sigs: {
      mainnet: { r: '0x609cb20c737945d070716dcc696ba030e9976fcf5edad87afa7d877493109d55', s: '0x16c685d63b5c7a04512d73f183b3d7a00da5406ff1f8aad33f8ae2163bab758b', v: 28 },
      testnet: { r: '0x4e4f2dbd4107c69783e251b7e1057d9f2b9d11cee213441ccfa2be63516dc5bc', s: '0x706c656b23428c8ba356d68db207e11139ede1670481a9e01ae2dfcdb0e1a678', v: 27 },
    },
  },
];

/** The body the Python SDK posts for an L1 action (`Exchange._post_action`), keys in its order. */
function pythonEnvelope(action: Record<string, unknown>, signature: Vector['sigs']['mainnet']) {
  return { action, nonce: 0, signature, vaultAddress: null, expiresAfter: null };
}

describe('the Python SDK\u2019s signing vectors', () => {
  it('include signatures whose r or s has fewer than 64 hex digits (the SDK drops leading zeros)', () => {
    const short = VECTORS.flatMap((v) => Object.values(v.sigs)).filter((sig) => sig.r.length < 66 || sig.s.length < 66);
    assert.equal(short.length, 4);
  });

  for (const vector of VECTORS) {
    for (const network of ['mainnet', 'testnet'] as const) {
      it(`${vector.test} (${network}): the SDK's envelope passes as sent and recovers the SDK's key`, async () => {
        const defects: PerpOrderDefect[] = [];
        // The vectors sign nonce 0, which the strict reading refuses; it reads the envelope at nonce 1, and recovery uses 0.
        const signed = readSignedAction({ ...pythonEnvelope(vector.action, vector.sigs[network]), nonce: 1 }, 'perpTakerOrder', defects);
        assert.deepEqual(defects, []);
        assert.ok(signed !== null);
        assert.equal(signed.action, vector.action, 'the action is the one sent, not a copy');
        assert.match(signed.signature.r, /^0x[0-9a-f]{64}$/);
        assert.equal(BigInt(signed.signature.r), BigInt(vector.sigs[network].r), 'left-padded: the same number');
        assert.equal(await recoverL1Signer({ action: vector.action, nonce: 0, signature: vector.sigs[network] } as SignedVenueAction, network), SDK_ADDRESS);
        assert.equal(await recoverL1Signer({ ...signed, nonce: 0 }, network), SDK_ADDRESS);
      });
    }
  }

  it('still refuses a non-null expiresAfter or vaultAddress, v outside 27/28, and r or s that is not 0x-hex or longer than 64 digits', () => {
    const { action, sigs } = VECTORS[2]!;
    const refusedAt = (raw: unknown): string[] => {
      const defects: PerpOrderDefect[] = [];
      readSignedAction(raw, 'o', defects);
      return defects.map((d) => d.field);
    };
    const envelope = { ...pythonEnvelope(action, sigs.mainnet), nonce: 1 };
    assert.deepEqual(refusedAt(envelope), []);
    assert.deepEqual(refusedAt({ ...envelope, expiresAfter: 1_800_000_000_000 }), ['o.expiresAfter']);
    assert.deepEqual(refusedAt({ ...envelope, vaultAddress: '0x1719884eb866cb12b2287399b15f7db5e7d775ea' }), ['o.vaultAddress']);
    assert.deepEqual(refusedAt({ ...envelope, signature: { ...sigs.mainnet, v: 29 } }), ['o.signature.v']);
    assert.deepEqual(refusedAt({ ...envelope, signature: { ...sigs.mainnet, r: sigs.mainnet.r.slice(2) } }), ['o.signature.r']);
    assert.deepEqual(refusedAt({ ...envelope, signature: { ...sigs.mainnet, s: `0x0${'f'.repeat(64)}` } }), ['o.signature.s']);
    assert.deepEqual(refusedAt({ ...envelope, signature: { ...sigs.mainnet, s: '0x' } }), ['o.signature.s']);
  });
});
