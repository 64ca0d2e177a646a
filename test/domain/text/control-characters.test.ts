/** Bad text (control characters, unpaired surrogates) found anywhere in a value, and quoted printable. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { controlCharacterPath, hasBadText, printable } from '../../../src/domain/text/control-characters.ts';

describe('bad text at the edge', () => {
  it('finds an unpaired surrogate in a value or a key, anywhere, and names its path printable', () => {
    assert.equal(controlCharacterPath({ a: { b: ['ok', 'x\ud800'] } }), 'a.b[1]');
    assert.equal(controlCharacterPath({ action: { type: 'order', '\ud800': 1 } }), 'action.\\ud800');
    assert.equal(controlCharacterPath({ a: '\udc00lone low' }), 'a');
    assert.equal(controlCharacterPath({ a: 'pair \ud83d\ude00 is fine' }), null);
    assert.equal(controlCharacterPath({ message: 'line\nline' }, '', 0, ['message']), null);
    assert.equal(controlCharacterPath({ message: '\ud800\n\udc00' }, '', 0, ['message']), 'message', 'a line feed does not pair two halves');
  });

  it('printable text is well formed, free of control characters, and unchanged when nothing is bad', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        const out = printable(text);
        assert.ok(!hasBadText(out), JSON.stringify(out));
        if (!hasBadText(text)) assert.equal(out, text);
      }),
      { numRuns: 200 },
    );
    assert.equal(printable('a\u0000b\ud800c\ud83d\ude00'), 'a\\u0000b\\ud800c\ud83d\ude00');
  });
});
