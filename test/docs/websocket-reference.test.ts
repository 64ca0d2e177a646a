/** docs/websocket.md lists exactly the messages of the AsyncAPI document. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { REFERENCE_FILE, renderMessages, withMessages } from '../../scripts/websocket-reference.ts';
import { asyncApiDocument } from '../../src/runtime/asyncapi.ts';

it('docs/websocket.md message list equals the one generated from /asyncapi.json', async () => {
  const committed = await readFile(REFERENCE_FILE, 'utf8');
  assert.equal(withMessages(committed, renderMessages(asyncApiDocument())), committed, 'run: node scripts/websocket-reference.ts');
});
