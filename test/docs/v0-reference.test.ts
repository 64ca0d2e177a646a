/** docs/v0-reference.md is exactly what the `/v0` operation schemas generate. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { V0_REFERENCE_FILE, renderV0Reference } from '../../scripts/v0-reference.ts';

it('docs/v0-reference.md equals the page generated from the /v0 schemas', async () => {
  assert.equal(await readFile(V0_REFERENCE_FILE, 'utf8'), renderV0Reference(), 'run: node scripts/v0-reference.ts');
});
