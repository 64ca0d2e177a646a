/**
 * Everything a user reads is self-contained and speaks of the product: README.md, docs/**,
 * bench/RESULTS.md, the simulator's and the contracts' READMEs, examples/** and console/** point
 * only at files inside the repository (no `../shared`, no `DESIGN.md`, no spec file the
 * repository does not hold, no link to a missing file) and carry no work-log entry (no numbered
 * sessions, stops or issues, no dated log headings).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

const USER_FACING = ['README.md', 'docs', 'bench/RESULTS.md', 'sim/venue/README.md', 'contracts/README.md', 'examples', 'console'];
const TEXT = /\.(?:md|ts|js|mjs|json|html|css|sol|txt)$/;

function filesUnder(relative: string): string[] {
  const full = path.join(root, relative);
  if (!statSync(full).isDirectory()) return [relative];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const child = path.posix.join(relative, entry.name);
    if (entry.isDirectory()) return filesUnder(child);
    return TEXT.test(entry.name) ? [child] : [];
  });
}

export interface Finding { line: number; text: string; why: string }

const OUTSIDE = /(?:\.\.\/)+shared\b|\bDESIGN\.md\b|\/work\//;
/** A repository path written in the text: a top-level directory of ours, then a file with an extension. */
const REPO_PATH = /(?:^|[\s(`'"[])((?:\.{1,2}\/)*(?:docs|src|test|bench|sim|scripts|contracts|console|examples|spec)\/[\w./-]*\w\.(?:md|ts|js|json|sol|html|css))(?=$|[\s)`'",:;\]#])/g;
const MARKDOWN_LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;
const WORK_LOG = /\b(?:sessions?|stops?|issues?|sprints?|iterations?)\s+#?\d+\b/i;
const DATED_HEADING = /^#{1,6}\s.*\b\d{4}-\d{2}-\d{2}\b/;

/** What in one file's text points outside the repository or narrates the work behind it. */
export function findingsIn(file: string, text: string, exists: (repoPath: string) => boolean): Finding[] {
  const findings: Finding[] = [];
  const here = path.posix.dirname(file);
  const resolve = (target: string): string | null => {
    // `./src/...` in a snippet run from the repository root reads from the root as well.
    const fromRoot = target.startsWith('./') ? [path.posix.normalize(target)] : [];
    const candidates = target.startsWith('.') ? [path.posix.join(here, target), ...fromRoot] : [path.posix.normalize(target), path.posix.join(here, target)];
    const inside = candidates.filter((c) => !c.startsWith('..') && !path.posix.isAbsolute(c));
    return inside.find(exists) ?? (inside.length === 0 ? null : '');
  };
  text.split('\n').forEach((line, index) => {
    const at = (why: string) => findings.push({ line: index + 1, text: line.trim(), why });
    if (OUTSIDE.test(line)) at('points outside the repository');
    if (WORK_LOG.test(line)) at('numbers a stretch of work');
    if (file.endsWith('.md') && DATED_HEADING.test(line)) at('dated log heading');
    const linked = new Set<string>();
    // A link written inside a code span is an example, not a link.
    for (const [, target] of line.replace(/`[^`]*`/g, '').matchAll(MARKDOWN_LINK)) {
      linked.add(target!);
      if (/^(?:[a-z]+:|#)/i.test(target!)) continue;
      const clean = decodeURIComponent(target!.split('#')[0]!);
      if (clean === '') continue;
      const found = resolve(clean);
      if (found === null) at(`link outside the repository: ${target}`);
      else if (found === '') at(`link to a missing file: ${target}`);
    }
    for (const [, target] of line.matchAll(REPO_PATH)) {
      if (linked.has(target!)) continue;
      const found = resolve(target!);
      if (found === null) at(`path outside the repository: ${target}`);
      else if (found === '') at(`names a missing file: ${target}`);
    }
  });
  return findings;
}

const existsInRepo = (repoPath: string) => existsSync(path.join(root, repoPath));

describe('user-facing files are self-contained', () => {
  it('no user-facing file points outside the repository, at a missing file, or carries a work-log entry', () => {
    const files = USER_FACING.flatMap(filesUnder);
    assert.ok(files.length >= 40, `found ${files.length} files`);
    const problems = files.flatMap((file) => findingsIn(file, readFileSync(path.join(root, file), 'utf8'), existsInRepo).map((f) => `${file}:${f.line}: ${f.why}: ${f.text}`));
    assert.deepEqual(problems, []);
  });

  it('no source, test, simulator, benchmark or script file numbers a stretch of work', () => {
    const self = path.relative(root, import.meta.filename).split(path.sep).join('/');
    const files = ['src', 'test', 'sim', 'bench', 'scripts'].flatMap(filesUnder).filter((file) => file !== self);
    const problems = files.flatMap((file) => readFileSync(path.join(root, file), 'utf8').split('\n').flatMap((line, index) => (WORK_LOG.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])));
    assert.deepEqual(problems, []);
  });

  it('the check finds each kind of problem', () => {
    const sample = [
      'See [the design](../shared/DESIGN.md) and `spec/v0-legacy-interface.md`.',
      'Built in session 24, fixed for issue 17 (stop 26).',
      '## 2026-11-29: three runs',
      'Read [the guide](docs/nowhere.md) and [ok](docs/errors.md), `src/domain/money/index.ts` and `src/missing.ts`.',
    ].join('\n');
    const whys = findingsIn('README.md', sample, existsInRepo).map((f) => `${f.line} ${f.why}`);
    assert.deepEqual(whys, [
      '1 points outside the repository',
      '1 link outside the repository: ../shared/DESIGN.md',
      '1 names a missing file: spec/v0-legacy-interface.md',
      '2 numbers a stretch of work',
      '3 dated log heading',
      '4 link to a missing file: docs/nowhere.md',
      '4 names a missing file: src/missing.ts',
    ]);
  });

  it('resolves relative links from the file that holds them', () => {
    assert.deepEqual(findingsIn('docs/guide.md', '[index](decisions.md) [up](../README.md) [bench](../bench/RESULTS.md)', existsInRepo), []);
    assert.deepEqual(findingsIn('docs/guide.md', '[x](../../elsewhere.md)', existsInRepo).map((f) => f.why), ['link outside the repository: ../../elsewhere.md']);
    assert.deepEqual(findingsIn('docs/guide.md', 'a row: `[title](decisions/NNNN-title.md)`; [`errors`](errors.md)', existsInRepo), []);
  });
});
