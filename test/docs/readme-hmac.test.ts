/**
 * The README's HMAC worked examples, and docs/websocket.md's `auth` one, are checked against the
 * client's signer and an independent HMAC computed here, so the documented recipe cannot drift
 * from the implementation. The README's OpenSSL recipe is run as written, with the documented
 * secret and with one whose bytes are not text.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
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

it('README OpenSSL recipe signs like the service, for any secret', { skip: existsSync('/usr/bin/openssl') ? false : 'openssl is not installed' }, async () => {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const recipe = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((block) => block.includes('openssl dgst'));
  assert.ok(recipe, 'README has the OpenSSL recipe');
  const [example] = parseExamples(readme);
  const run = (secret: string) => execFileSync('bash', ['-e', '-o', 'pipefail', '-c', recipe.replace(/^SECRET=.*$/m, `SECRET='${secret}'`)], { encoding: 'utf8' }).trim();
  assert.equal(run(example!.secret), example!.signature);
  // 0xff, 0x00 and other bytes no shell argument or text key can carry.
  const binary = Buffer.concat([Buffer.from([0xff, 0x00, 0x80, 0x0a]), randomBytes(28)]).toString('base64');
  const canonical = canonicalString(example!);
  assert.equal(run(binary), signCanonical(binary, canonical));
});
