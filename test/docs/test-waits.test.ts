/**
 * Tests wait for conditions, not for time: outside test/helpers/ no test file sleeps on its own
 * (a promise resolved by a timer, a timers/promises delay, a `sleep` of its own, an `absentFor`).
 * They wait with test/helpers/eventually.ts, whose `elapse` names the spans where time passing is
 * what is tested; an absence is shown after a later event the test observes, never after a span.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const testDir = path.join(root, 'test');

const WAITS: Array<[string, RegExp]> = [
  ['a timer resolving a promise', /setTimeout\(\s*(?:resolve|res|r|done|ok)\s*[,)]/],
  ['a timer resolving a promise', /setTimeout\(\s*\(\)\s*=>\s*(?:resolve|res|r)\s*\(/],
  ['a timers/promises delay', /from\s+['"](?:node:)?timers\/promises['"]/],
  ['a sleep of its own', /\b(?:const|let|function)\s+sleep\b/],
  ['a fixed span standing for an absence', /\babsentFor\b/],
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('test waits', () => {
  it('no test file outside test/helpers/ sleeps with a timer or defines its own sleep', () => {
    const files = testFiles(testDir).filter((file) => !file.startsWith(path.join(testDir, 'helpers') + path.sep));
    assert.ok(files.length > 100, `found ${files.length} test files`);
    const found: string[] = [];
    for (const file of files) {
      if (file === import.meta.filename) continue; // its own patterns
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        for (const [kind, pattern] of WAITS) if (pattern.test(line)) found.push(`${path.relative(root, file)}:${i + 1}: ${kind} (wait with test/helpers/eventually.ts)`);
      });
    }
    assert.deepEqual(found, []);
  });

  it('the wait helpers offer no fixed span for an absence', () => {
    const helpers = readFileSync(path.join(testDir, 'helpers', 'eventually.ts'), 'utf8');
    assert.doesNotMatch(helpers, /export\s+(?:async\s+)?function\s+absentFor\b/);
  });
});
