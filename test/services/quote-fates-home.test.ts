/**
 * The other quotes' fates at a selection, a cancel or an auction's end have one home: the
 * domain's `quoteFates` (src/domain/rfq/quote-fates.ts). A service that decides a quote's
 * `select`, `notSelect` or `expire` itself would be a second home for that rule, so the source is
 * read as text and such a call outside the allowed places fails. The perp executor's `promote`
 * (a backup taking over from a refused winner) and `releaseBackups` (the backups let go once the
 * RFQ ends) are effects the executor's pure step decided; they are the two exceptions, named here.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

const FATE_CALL = /\b(?:decideQuote|moveQuote)\([^;]*?'(select|notSelect|expire)'/g;

/** `file: the call's text` allowed to name a fate directly. */
const ALLOWED = new Set([
  "src/services/perp/apply-effects.ts: moveQuote(c, backup, 'notSelect'",
  "src/services/perp/apply-effects.ts: moveQuote(c, quote, 'select'",
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

function fateCalls(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles('src').filter((f) => !f.startsWith('src/domain/'))) {
    for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(FATE_CALL)) found.push(`${file}: ${m[0]}`);
  }
  return found;
}

describe('the quotes\' fates have one home', () => {
  it('no service outside the perp executor\'s two effects decides select, notSelect or expire itself', () => {
    const calls = fateCalls();
    assert.deepEqual(calls.filter((call) => !ALLOWED.has(call)), []);
    // The exceptions are still there (the pattern still finds what it is meant to find).
    assert.deepEqual([...new Set(calls)].sort(), [...ALLOWED].sort());
  });

  it('the pattern catches a service deciding a fate itself', () => {
    const source = "for (const q of others) await persistQuote(tx, deps, { quote: q, decision: decideQuote(q, 'notSelect') });";
    assert.equal([...source.matchAll(FATE_CALL)].length, 1);
  });
});
