/** docs/architecture.md stays true: its file paths exist and its layer table is the lint rule's. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
// @ts-expect-error plain JavaScript module shared with the lint configuration (no declarations)
import { LAYERS } from '../../scripts/lint/layers.js';
import { SQL_CHECKS } from '../../src/store/sql/manifest.ts';

const root = path.resolve(import.meta.dirname, '../..');
const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

function section(heading: string): string {
  const start = doc.indexOf(`## ${heading}`);
  assert.ok(start >= 0, `section "${heading}" exists`);
  const end = doc.indexOf('\n## ', start + 3);
  return doc.slice(start, end < 0 ? undefined : end);
}

function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .slice(1)
    .map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
}

describe('docs/architecture.md', () => {
  it('every file it names exists', () => {
    const paths = [...doc.matchAll(/`((?:src|scripts|test|docs)\/[^`\s]+\.(?:ts|js|md))`/g)].map((m) => m[1]!);
    assert.ok(paths.length >= 30, `found ${paths.length} paths`);
    const missing = paths.filter((p) => !existsSync(path.join(root, p)));
    assert.deepEqual(missing, []);
  });

  it('names one file for each rule the issue asks for', () => {
    const rows = tableRows(section('Spec rule -> the one file'));
    const rules = rows.map(([rule]) => rule!);
    for (const wanted of ['fees', 'best price', 'conformity', 'settlementDeadline', 'HMAC canonical string', 'replay claim', 'RFQ state machine', 'quote state machine', 'withdrawal state machine', 'deposit state machine', 'custody transfer state machine', 'venue action state machine', '`/v0` withdrawal state machine', 'posting set: spot settlement and fee', 'posting set: promised payout', 'posting set: withdrawal', 'posting set: deposit']) {
      assert.ok(rules.some((r) => r.includes(wanted)), `a row for ${wanted}`);
    }
    for (const [rule, file] of rows) assert.match(file!, /^`[^`]+`$/, `${rule}: exactly one file`);
  });

  it('its layer table says what the lint rule enforces', () => {
    const rows = tableRows(section('Layers and what each may import'));
    const documented = Object.fromEntries(rows.map(([layer, , imports]) => [layer!.replace(/`src\/(\w+)`/, '$1'), imports!]));
    assert.deepEqual(Object.keys(documented).sort(), Object.keys(LAYERS).sort());
    for (const [layer, allowed] of Object.entries(LAYERS as Record<string, string[] | '*'>)) {
      const text = documented[layer]!;
      if (allowed === '*') assert.equal(text, 'anything');
      else assert.deepEqual(text.replace(/\s*\(.*\)$/, '').split(',').map((s) => s.trim()).sort(), [...allowed].sort(), layer);
    }
  });

  it('lists every rule checked inside the database with its SQL check and domain rule, as the manifest does', () => {
    const rows = tableRows(section('Rules checked inside the database'));
    assert.deepEqual(rows.map(([, check]) => check!.replace(/`/g, '')).sort(), Object.keys(SQL_CHECKS).sort());
    for (const [, check, rule] of rows) {
      const name = check!.replace(/`/g, '') as keyof typeof SQL_CHECKS;
      assert.ok(rule!.startsWith(`\`${SQL_CHECKS[name].rule}\``), `${name}: ${rule}`);
      const file = /\(`([^`]+)`\)/.exec(rule!)?.[1];
      assert.ok(file && readFileSync(path.join(root, file), 'utf8').includes(`export function ${SQL_CHECKS[name].rule}(`), `${SQL_CHECKS[name].rule} is exported by ${file}`);
    }
  });

  it('services hold no query: no query-builder call and no sql of their own', () => {
    assert.match(section('Queries live in the store'), /No file in `src\/services` calls the query\s+builder/);
    const queries = (file: string) => [...readFileSync(file, 'utf8').matchAll(/\.(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql(<[^>]*>)?`/g)].map((m) => `${path.relative(root, file)}: ${m[0]}`);
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    assert.deepEqual(files(path.join(root, 'src/services')).flatMap(queries), []);
  });
});
