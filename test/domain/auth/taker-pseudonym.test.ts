import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isTakerPseudonym, takerPseudonym } from '../../../src/domain/auth/taker-pseudonym.ts';

const KEY = new Uint8Array(32).fill(7);

describe('taker pseudonyms', () => {
  it('are tkr_ and 16 base32 characters, stable for a maker and taker', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), (maker, taker) => {
        const pseudonym = takerPseudonym(KEY, maker, taker);
        assert.ok(isTakerPseudonym(pseudonym), pseudonym);
        assert.equal(takerPseudonym(KEY, maker, taker), pseudonym);
      }),
    );
  });

  it('differ between makers for one taker, and between takers for one maker', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uuid(), fc.uuid(), (a, b, taker) => {
        fc.pre(a !== b);
        assert.notEqual(takerPseudonym(KEY, a, taker), takerPseudonym(KEY, b, taker));
        assert.notEqual(takerPseudonym(KEY, taker, a), takerPseudonym(KEY, taker, b));
      }),
    );
  });

  it('depend on the key', () => {
    assert.notEqual(takerPseudonym(KEY, 'm', 't'), takerPseudonym(new Uint8Array(32).fill(8), 'm', 't'));
  });

  it('match an independent computation: RFC 4648 base32, lower case, of the first 10 bytes of HMAC-SHA256(key, maker \\n taker)', () => {
    // python3: 'tkr_' + base64.b32encode(hmac.new(bytes([7]*32), b'maker\ntaker', hashlib.sha256).digest()[:10]).decode().lower()
    assert.equal(takerPseudonym(KEY, 'maker', 'taker'), 'tkr_3qxxlin3dw26kzbn');
  });

  it('recognises only the pseudonym form', () => {
    for (const text of ['tkr_3qxxlin3dw26kzbn', 'tkr_aaaaaaaaaaaaaaaa']) assert.ok(isTakerPseudonym(text), text);
    for (const text of ['tkr_3QXXLIN3DW26KZBN', 'tkr_3qxxlin3dw26kzb', 'tkr_3qxxlin3dw26kzbn0', 'tkr_18xxlin3dw26kzbn', '0x3qxxlin3dw26kzbn']) assert.ok(!isTakerPseudonym(text), text);
  });
});
