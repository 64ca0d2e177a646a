/**
 * The README's feature table is kept true by the tests it names: each row names a test file and
 * the title of a test in it, and this fails when the file is gone or no test there has that
 * title any more.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export interface FeatureRow { feature: string; file: string; title: string }

/** The rows of the table under `## Features` (three cells: feature, `test file`, test title). */
export function featureRows(readme: string): FeatureRow[] {
  const start = readme.indexOf('\n## Features\n');
  assert.ok(start >= 0, 'README has a "Features" section');
  const next = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, next < 0 ? undefined : next);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .slice(1)
    .map((line) => {
      const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
      assert.equal(cells.length, 3, `three cells in: ${line}`);
      const file = /^`([^`]+)`$/.exec(cells[1]!)?.[1];
      assert.ok(file, `the test file is in backticks: ${line}`);
      return { feature: cells[0]!, file, title: cells[2]! };
    });
}

/** What is wrong with one row: its file missing, not a test file, or no test of that title in it. */
export function rowProblem(row: FeatureRow, read: (file: string) => string | null): string | null {
  if (!/^test\/.+\.test\.ts$/.test(row.file)) return `${row.feature}: ${row.file} is not a test file`;
  const source = read(row.file);
  if (source === null) return `${row.feature}: ${row.file} does not exist`;
  const quoted = [`'${row.title}'`, `"${row.title}"`, `\`${row.title}\``];
  const named = quoted.some((title) => new RegExp(`\\b(?:it|test|describe)\\(\\s*${escape(title)}`).test(source));
  return named ? null : `${row.feature}: no test titled "${row.title}" in ${row.file}`;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const readRepoFile = (file: string) => (existsSync(path.join(root, file)) ? readFileSync(path.join(root, file), 'utf8') : null);

describe('README feature table', () => {
  it('every row names an existing test file and a test title in it', () => {
    const rows = featureRows(readFileSync(path.join(root, 'README.md'), 'utf8'));
    assert.ok(rows.length >= 10, `found ${rows.length} rows`);
    assert.deepEqual(rows.map((row) => rowProblem(row, readRepoFile)).filter(Boolean), []);
  });

  it('a row fails when its test file is gone or its test is renamed', () => {
    const row = { feature: 'replay', file: 'test/ws/replay.test.ts', title: 'replays nothing when fromSeq is the current seq' };
    assert.equal(rowProblem(row, readRepoFile), null);
    assert.match(rowProblem({ ...row, file: 'test/ws/gone.test.ts' }, readRepoFile) ?? '', /does not exist/);
    assert.match(rowProblem({ ...row, title: 'replays nothing' }, readRepoFile) ?? '', /no test titled/);
    assert.match(rowProblem({ ...row, file: 'src/ws/session.ts' }, readRepoFile) ?? '', /not a test file/);
  });
});
