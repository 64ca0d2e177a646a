/** docs/errors.md lists exactly the codes of src/domain/error-codes.ts, with the same statuses. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { errorCodes } from '../../src/domain/error-codes.ts';

it('docs/errors.md and the code table agree', async () => {
  const doc = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map([...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
  assert.deepEqual([...rows.keys()].sort(), Object.keys(errorCodes).sort());
  for (const [code, { status }] of Object.entries(errorCodes)) assert.equal(rows.get(code), status, code);
});
