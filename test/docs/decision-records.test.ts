/**
 * The decision records and their index agree: `docs/decisions.md` lists every record in
 * `docs/decisions/` (and nothing else) with the record's status, and each record has its
 * Context, Decision, Consequences and Status, the status `accepted` or `superseded by NNNN` naming
 * a record that exists.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const dir = path.join(root, 'docs/decisions');
const records = readdirSync(dir).filter((name) => !name.startsWith('.')).sort();
const index = readFileSync(path.join(root, 'docs/decisions.md'), 'utf8');

/** The record's status: the first line of its `## Status` section, or a `Status:` line. */
export function statusOf(text: string): string | null {
  const section = /^#{2,3}\s+Status\s*\n+\s*([^\n]+)/m.exec(text)?.[1];
  const line = /^\**Status\**:\**\s*([^\n]+)/m.exec(text)?.[1];
  const status = section ?? line;
  return status === undefined ? null : status.replace(/[*_`.]/g, '').trim();
}

/** What is wrong with one record's text (given the numbers of all records). */
export function recordProblems(text: string, numbers: Set<string>): string[] {
  const problems: string[] = [];
  for (const section of ['Context', 'Decisions?', 'Consequences']) {
    if (!new RegExp(`^#{2,3}\\s+${section}\\s*$`, 'm').test(text)) problems.push(`no ${section.replace('s?', '')} section`);
  }
  const status = statusOf(text);
  const superseded = status === null ? null : /^superseded by (\d{4})$/i.exec(status);
  if (status === null) problems.push('no status');
  else if (status.toLowerCase() !== 'accepted' && !superseded) problems.push(`status "${status}" is neither accepted nor superseded by NNNN`);
  else if (superseded && !numbers.has(superseded[1]!)) problems.push(`superseded by ${superseded[1]}, which does not exist`);
  return problems;
}

/** The index's rows: number, linked file and status. */
function indexRows(): { number: string; file: string; status: string }[] {
  return [...index.matchAll(/^\|\s*(\d{4})\s*\|\s*\[[^\]]+\]\(decisions\/([^)]+)\)\s*\|\s*([^|]+?)\s*\|/gm)].map((m) => ({ number: m[1]!, file: m[2]!, status: m[3]! }));
}

describe('decision records', () => {
  it('every file in docs/decisions/ is a record named NNNN-short-title.md with a unique number', () => {
    assert.ok(records.length >= 30, `found ${records.length} records`);
    const badNames = records.filter((name) => !/^\d{4}-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/.test(name));
    assert.deepEqual(badNames, []);
    const numbers = records.map((name) => name.slice(0, 4));
    assert.equal(new Set(numbers).size, numbers.length, 'numbers are unique');
  });

  it('docs/decisions.md indexes every record once, and only records that exist, with their status', () => {
    const rows = indexRows();
    assert.deepEqual(rows.map((row) => row.file).sort(), records, 'the index lists exactly the records');
    for (const row of rows) {
      assert.ok(row.file.startsWith(`${row.number}-`), `${row.file} is indexed under its own number`);
      const status = statusOf(readFileSync(path.join(dir, row.file), 'utf8'));
      assert.equal(row.status.toLowerCase(), status?.toLowerCase(), `${row.file}: the index shows the record's status`);
    }
  });

  it('each record has Context, Decision, Consequences and a valid Status', () => {
    const numbers = new Set(records.map((name) => name.slice(0, 4)));
    const problems = records.flatMap((name) => recordProblems(readFileSync(path.join(dir, name), 'utf8'), numbers).map((p) => `${name}: ${p}`));
    assert.deepEqual(problems, []);
  });

  it('the record check finds a missing section and a bad or dangling status', () => {
    const numbers = new Set(['0001']);
    const good = '# 0002. X\n\n## Context\n\na\n\n## Decision\n\nb\n\n## Consequences\n\nc\n\n## Status\n\n';
    assert.deepEqual(recordProblems(`${good}accepted\n`, numbers), []);
    assert.deepEqual(recordProblems(`${good}superseded by 0001\n`, numbers), []);
    assert.deepEqual(recordProblems('# 0003. Y\n\nStatus: accepted\n\n## Context\n\n## Decision\n\n## Consequences\n', numbers), []);
    assert.deepEqual(recordProblems(`${good}superseded by 0009\n`, numbers), ['superseded by 0009, which does not exist']);
    assert.deepEqual(recordProblems(`${good}proposed\n`, numbers), ['status "proposed" is neither accepted nor superseded by NNNN']);
    assert.deepEqual(recordProblems(good.replace('## Consequences', '## Notes'), numbers), ['no Consequences section', 'no status']);
  });
});
