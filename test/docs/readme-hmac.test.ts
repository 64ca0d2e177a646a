/**
 * The README's HMAC worked examples, and docs/websocket.md's `auth` one, are checked against the
 * client's signer and an independent HMAC computed here, so the documented recipe cannot drift
 * from the implementation.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { canonicalString, signCanonical, wsAuthCanonical } from '../../src/domain/auth/hmac.ts';

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

it('docs/websocket.md: the auth example signs the socket path, and its frame carries that signature', async () => {
  const doc = await readFile(new URL('../../docs/websocket.md', import.meta.url), 'utf8');
  const [example, ...more] = parseExamples(doc);
  assert.ok(example);
  assert.equal(more.length, 0);
  const independent = createHmac('sha256', Buffer.from(example.secret, 'base64')).update(`${example.timestamp}\nGET\n${example.path}\n\n`).digest('base64');
  assert.equal(independent, example.signature);
  assert.equal(signCanonical(example.secret, wsAuthCanonical(Number(example.timestamp), example.path)), example.signature);
  const frame = JSON.parse(/```json\n(\{"kind":"auth".*\})\n```/.exec(doc)![1]!) as { signedAt: number; signature: string };
  assert.deepEqual([String(frame.signedAt), frame.signature], [example.timestamp, example.signature]);
});
