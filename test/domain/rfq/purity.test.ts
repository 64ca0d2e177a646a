/**
 * Keeps `src/domain/rfq` pure (STYLE.md 1): it may import only its own files, the error types, the
 * machines' shared lookup (`domain/state-machine.ts`), the frames a decision lists
 * (`domain/frames.ts`, types only) and `domain/money`, and may not read the clock or draw randomness. A linter rule would do this
 * better; until one exists, this test does.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../../src/domain/rfq/', import.meta.url));
const ALLOWED_IMPORT = /^(\.\/[a-z-]+\.ts|\.\.\/errors\.ts|\.\.\/state-machine\.ts|\.\.\/frames\.ts|\.\.\/error-codes\.ts|\.\.\/money\/[a-z-]+\.ts)$/;
const FORBIDDEN = [/\bDate\b/, /Math\.random/, /\bperformance\b/, /\bprocess\b/, /\bcrypto\b/, /\bsetTimeout\b/, /\bsetInterval\b/];

describe('src/domain/rfq purity', () => {
  const files = readdirSync(DIR).filter((name) => name.endsWith('.ts'));

  it('has the expected files', () => {
    assert.ok(files.includes('index.ts') && files.length >= 9, files.join(', '));
  });

  for (const name of files) {
    it(`${name} imports only domain modules and reads no clock or randomness`, () => {
      const source = readFileSync(DIR + name, 'utf8');
      for (const match of source.matchAll(/\bfrom\s+'([^']+)'/g)) {
        assert.match(match[1] ?? '', ALLOWED_IMPORT, `${name} imports ${match[1]}`);
      }
      assert.doesNotMatch(source, /\bimport\s*\(/, `${name} uses a dynamic import`);
      assert.doesNotMatch(source, /\brequire\s*\(/, `${name} uses require`);
      for (const pattern of FORBIDDEN) assert.doesNotMatch(source, pattern, `${name} mentions ${pattern}`);
    });
  }
});
