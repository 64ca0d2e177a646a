/** docs/http-reference.md lists exactly the routes of the running app's OpenAPI document. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { REFERENCE_FILE, liveOpenApiDocument, renderRoutes, withRoutes } from '../../scripts/http-reference.ts';

it('docs/http-reference.md route list equals the one generated from /openapi.json', async () => {
  const committed = await readFile(REFERENCE_FILE, 'utf8');
  const document = await liveOpenApiDocument();
  assert.equal(withRoutes(committed, renderRoutes(document)), committed, 'run: node scripts/http-reference.ts');
  // Every route is documented with a summary and an auth level (the generator falls back otherwise).
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      assert.ok(operation.summary, `${method} ${path} has a summary`);
      assert.ok(['none', 'hmac', 'maker', 'admin'].includes(operation['x-auth'] ?? ''), `${method} ${path} has x-auth`);
    }
  }
});
