/**
 * Keeps `src/domain/perp` pure (STYLE.md 1): its own files, the domain's money and rfq types,
 * the venue SDK's hashing and schemas and viem's recovery; no clock, randomness or I/O.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../../../src/domain/perp/', import.meta.url));
const ALLOWED_IMPORT = /^(\.\/[a-z-]+\.ts|\.\.\/money\/index\.ts|\.\.\/rfq\/(types|sweep-selection)\.ts|viem|@nktkas\/hyperliquid\/(signing|api\/exchange))$/;
const FORBIDDEN = [/\bDate\b/, /Math\.random/, /\bperformance\b/, /\bprocess\b/, /\bsetTimeout\b/, /\bfetch\(/];

describe('src/domain/perp purity', () => {
  for (const name of readdirSync(DIR).filter((n) => n.endsWith('.ts'))) {
    it(`${name} imports only domain modules and the signing libraries`, () => {
      const source = readFileSync(DIR + name, 'utf8');
      for (const match of source.matchAll(/\bfrom\s+'([^']+)'/g)) assert.match(match[1] ?? '', ALLOWED_IMPORT, `${name} imports ${match[1]}`);
      for (const pattern of FORBIDDEN) assert.doesNotMatch(source, pattern, `${name} mentions ${pattern}`);
    });
  }
});
