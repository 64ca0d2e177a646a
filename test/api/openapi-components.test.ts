/**
 * `/openapi.json` as a client generator reads it: a valid OpenAPI 3.1 document by an independent
 * validator (@seriousme/openapi-schema-validator), every request and response body a `$ref` to a
 * named component, the error envelope and the perp order envelope among them by name, and the
 * references resolving (the validator's own resolution).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';

type Json = Record<string, any>;

describe('/openapi.json component schemas', () => {
  const backend = backends().at(-1)!;
  let h: Harness;
  let doc: Json;
  before(async () => {
    h = await startHarness(backend, { logLevel: 'silent' });
    doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as Json;
  });
  after(async () => h?.close());

  it('is valid OpenAPI 3.1 to an npm validator, and its references resolve', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, '3.1');
    const resolved = validator.resolveRefs() as Json;
    assert.equal(resolved.paths['/v1/rfq/quotes'].post.requestBody.content['application/json'].schema.properties.rfqId.type, 'string');
  });

  it('every request and response body is a named component', () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    let bodies = 0;
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(operations)) {
        const contents = [operation.requestBody?.content, ...Object.values((operation.responses ?? {}) as Record<string, Json>).map((r) => r.content)].filter(Boolean);
        for (const content of contents) {
          for (const media of Object.values(content as Record<string, Json>)) {
            bodies++;
            const name = /^#\/components\/schemas\/([A-Za-z0-9._-]+)$/.exec(media.schema?.$ref ?? '')?.[1];
            assert.ok(name && schemas[name], `${method} ${path}: ${JSON.stringify(media.schema).slice(0, 120)}`);
          }
        }
      }
    }
    assert.ok(bodies > 100, `${bodies} bodies`);
  });

  it('names the error envelope, the domain bodies and the perp order envelope', () => {
    const schemas = doc.components.schemas as Json;
    const body = (path: string, method: string, status?: string) => {
      const operation = doc.paths[path][method];
      return (status ? operation.responses[status] : operation.requestBody).content['application/json'].schema.$ref;
    };
    assert.equal(body('/v1/rfq/requests', 'post', '400'), '#/components/schemas/ErrorEnvelope');
    assert.deepEqual(schemas.ErrorEnvelope.properties.error.required, ['code', 'message']);
    assert.equal(body('/v1/rfq/requests', 'post'), '#/components/schemas/CreateRfqRequest');
    assert.equal(body('/v1/rfq/quotes', 'post'), '#/components/schemas/CreateQuoteRequest');
    assert.equal(body('/v1/rfq/network', 'get', '200'), '#/components/schemas/NetworkInfo');
    for (const field of ['perpMakerOrder', 'perpMakerCancel']) assert.equal(schemas.CreateQuoteRequest.properties[field].$ref, '#/components/schemas/PerpSignedAction');
    assert.equal(schemas.AcceptRequest.properties.perpTakerOrder.$ref, '#/components/schemas/PerpSignedAction');
    assert.deepEqual(schemas.PerpSignedAction.required, ['action', 'nonce', 'signature']);
    assert.deepEqual(schemas.PerpSignedAction.properties.signature.required, ['r', 's', 'v']);
    // Nested shapes are references too: a quote's legs.
    assert.equal(schemas.CreateQuoteRequest.properties.makerPays.$ref, '#/components/schemas/QuoteLeg');
  });
});
