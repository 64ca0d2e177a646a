/**
 * The README's HMAC worked examples are checked against the client's signer and an independent
 * HMAC computed here, so the documented recipe cannot drift from the implementation.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { canonicalString, signCanonical } from '../../src/domain/auth/hmac.ts';

interface Example { secret: string; timestamp: string; method: string; path: string; query: string; body: string; signature: string }

function parseExamples(readme: string): Example[] {
  const blocks = [...readme.matchAll(/```text\n([\s\S]*?)```/g)].map((m) => m[1]!);
  return blocks
    .filter((block) => block.includes('signature:'))
    .map((block) => {
      const field = (name: string) => new RegExp(`^${name}:\\s+(.*)$`, 'm').exec(block)?.[1]?.trim() ?? '';
      const request = field('request').replace(/\s+\(.*\)$/, '');
      const [method = '', target = ''] = request.split(/\s+/);
      const [path = '', query = ''] = target.split('?');
      return { secret: field('secret'), timestamp: field('timestamp'), method, path, query, body: field('body'), signature: field('signature') };
    });
}

it('README worked examples match the signer and an independent HMAC', async () => {
  const examples = parseExamples(await readFile(new URL('../../README.md', import.meta.url), 'utf8'));
  assert.equal(examples.length, 2);
  for (const example of examples) {
    const canonical = canonicalString(example);
    const independent = createHmac('sha256', Buffer.from(example.secret, 'base64')).update(`${example.timestamp}\n${example.method}\n${example.path}\n${example.query}\n${example.body}`).digest('base64');
    assert.equal(independent, example.signature, `${example.method} ${example.path}`);
    assert.equal(signCanonical(example.secret, canonical), example.signature);
  }
});
