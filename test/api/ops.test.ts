/**
 * The ops surface and the cross-cutting HTTP behaviour, black-box over HTTP: health and
 * readiness, Prometheus metrics, the OpenAPI document, the error envelope for unknown routes and
 * bad bodies, nothing internal in a 500, and rate limits (per source, per key, and across two
 * nodes on one PostgreSQL).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import WebSocket from 'ws';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { backends, createTestDatabase } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { ApiError, signRequest, TimestampSource } from '../../src/client/http.ts';
import type { RfqClient } from '../../src/client/rfq-client.ts';
import { generateSecretKey } from '../../src/runtime/node.ts';
import { elapse, waitFor } from '../helpers/eventually.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Envelope = { error: { code: string; message: string; details?: Record<string, unknown> } };

async function json(response: Response): Promise<Envelope & Record<string, unknown>> {
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  return (await response.json()) as Envelope & Record<string, unknown>;
}

/** Waits until just after a wall-clock second starts, so a burst falls inside one rate window. */
async function freshSecond(): Promise<number> {
  await elapse(1000 - (Date.now() % 1000) + 5, 'a fresh one-second rate window opens');
  return Date.now();
}

const sameSecond = (a: number, b: number) => Math.floor(a / 1000) === Math.floor(b / 1000);

/** A signed GET with this client's credential, as raw fetch so every response header is visible. */
function signedGet(client: RfqClient, timestamps: TimestampSource, url: string, path: string): Promise<Response> {
  return fetch(`${url}${path}`, { headers: { ...signRequest(client.credentials!, timestamps.next(), 'GET', path, '', '') } });
}

/** `rfq_http_requests_total` samples as `method route status -> value`. */
function requestCounts(metrics: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of metrics.split('\n')) {
    const match = /^rfq_http_requests_total\{method="([^"]+)",route="([^"]*)",status="(\d+)"\} (\d+)$/.exec(line);
    if (match) counts.set(`${match[1]} ${match[2]} ${match[3]}`, Number(match[4]));
  }
  return counts;
}

/**
 * The rules of the OpenAPI 3.1 schema (spec.openapis.org/oas/3.1/schema) that a generated
 * document can break, plus the semantic ones it cannot express (path templates match path
 * parameters, $refs resolve, security names are declared). Every Schema Object must be a valid
 * JSON Schema 2020-12 schema (the 3.1 default dialect) and compile.
 */
function openApi31Problems(doc: Record<string, any>): string[] {
  const problems: string[] = [];
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  for (const keyword of ['example', 'discriminator', 'xml', 'externalDocs']) ajv.addKeyword(keyword); // OAS 3.1 schema vocabulary
  const onlyKeys = (where: string, object: Record<string, unknown>, allowed: string[]) => {
    for (const key of Object.keys(object)) if (!allowed.includes(key) && !key.startsWith('x-')) problems.push(`${where}: unexpected field ${key}`);
  };
  // A `#/components/schemas/X` reference resolves in the document, not in the schema compiled
  // alone: each component is also registered under its own id, and references point there.
  const standalone = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"urn:components:')) as object;
  for (const [name, schema] of Object.entries((doc.components?.schemas ?? {}) as Record<string, object>)) ajv.addSchema(standalone(schema), `urn:components:${name}`);
  const checkSchema = (where: string, schema: unknown) => {
    if (typeof schema === 'boolean') return;
    if (!schema || typeof schema !== 'object') return void problems.push(`${where}: schema must be an object or boolean`);
    if (!ajv.validateSchema(schema as object)) problems.push(`${where}: not a JSON Schema 2020-12 schema: ${ajv.errorsText(ajv.errors)}`);
    else {
      try {
        ajv.compile(standalone(schema));
      } catch (error) {
        problems.push(`${where}: does not compile: ${(error as Error).message}`);
      }
    }
  };
  const checkContent = (where: string, content: Record<string, any>) => {
    for (const [mediaType, media] of Object.entries(content)) {
      if (!/^[\w.+*-]+\/[\w.+*-]+/.test(mediaType)) problems.push(`${where}: bad media type ${mediaType}`);
      onlyKeys(`${where} ${mediaType}`, media, ['schema', 'encoding', 'example', 'examples']);
      if ('schema' in media) checkSchema(`${where} ${mediaType} schema`, media.schema);
    }
  };

  onlyKeys('document', doc, ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'paths', 'webhooks', 'components', 'security', 'tags', 'externalDocs']);
  if (typeof doc.openapi !== 'string' || !/^3\.1\.\d+(-.+)?$/.test(doc.openapi)) problems.push(`openapi must be 3.1.x, got ${doc.openapi}`);
  if (typeof doc.info?.title !== 'string' || typeof doc.info?.version !== 'string') problems.push('info.title and info.version are required strings');
  else onlyKeys('info', doc.info, ['title', 'summary', 'description', 'termsOfService', 'contact', 'license', 'version']);

  const components = (doc.components ?? {}) as Record<string, Record<string, any>>;
  onlyKeys('components', components, ['schemas', 'responses', 'parameters', 'examples', 'requestBodies', 'headers', 'securitySchemes', 'links', 'callbacks', 'pathItems']);
  for (const [kind, entries] of Object.entries(components)) {
    for (const name of Object.keys(entries ?? {})) if (!/^[a-zA-Z0-9._-]+$/.test(name)) problems.push(`components.${kind}: bad name ${name}`);
  }
  for (const [name, schema] of Object.entries(components.schemas ?? {})) checkSchema(`components.schemas.${name}`, schema);
  for (const [name, scheme] of Object.entries(components.securitySchemes ?? {})) {
    if (!['apiKey', 'http', 'mutualTLS', 'oauth2', 'openIdConnect'].includes(scheme.type)) problems.push(`securitySchemes.${name}: bad type ${scheme.type}`);
    if (scheme.type === 'http' && typeof scheme.scheme !== 'string') problems.push(`securitySchemes.${name}: http needs scheme`);
  }

  const operationIds = new Set<string>();
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths ?? {})) {
    if (!path.startsWith('/')) problems.push(`paths: ${path} must start with /`);
    onlyKeys(path, item, ['$ref', 'summary', 'description', 'servers', 'parameters', ...methods]);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!).sort();
    for (const method of methods.filter((m) => m in item)) {
      const where = `${method.toUpperCase()} ${path}`;
      const op = item[method];
      onlyKeys(where, op, ['tags', 'summary', 'description', 'externalDocs', 'operationId', 'parameters', 'requestBody', 'responses', 'callbacks', 'deprecated', 'security', 'servers']);
      if (op.operationId !== undefined) {
        if (operationIds.has(op.operationId)) problems.push(`${where}: duplicate operationId ${op.operationId}`);
        operationIds.add(op.operationId);
      }
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])] as Array<Record<string, any>>;
      const seen = new Set<string>();
      for (const p of parameters) {
        const at = `${where} parameter ${p.in}:${p.name}`;
        onlyKeys(at, p, ['name', 'in', 'description', 'required', 'deprecated', 'allowEmptyValue', 'style', 'explode', 'allowReserved', 'schema', 'content', 'example', 'examples']);
        if (typeof p.name !== 'string' || !['query', 'header', 'path', 'cookie'].includes(p.in)) problems.push(`${at}: needs name and a valid in`);
        if (p.in === 'path' && p.required !== true) problems.push(`${at}: path parameters must be required: true`);
        if (('schema' in p) === ('content' in p)) problems.push(`${at}: exactly one of schema or content`);
        if ('schema' in p) checkSchema(at, p.schema);
        if (seen.has(`${p.in}:${p.name}`)) problems.push(`${at}: duplicate`);
        seen.add(`${p.in}:${p.name}`);
      }
      const declared = parameters.filter((p) => p.in === 'path').map((p) => p.name as string).sort();
      if (JSON.stringify(declared) !== JSON.stringify(templated)) problems.push(`${where}: path parameters ${declared.join(',')} do not match the template (${templated.join(',')})`);
      if (op.requestBody) {
        onlyKeys(`${where} requestBody`, op.requestBody, ['description', 'content', 'required']);
        if (!op.requestBody.content || typeof op.requestBody.content !== 'object') problems.push(`${where}: requestBody needs content`);
        else checkContent(`${where} requestBody`, op.requestBody.content);
      }
      const responses = op.responses as Record<string, any> | undefined;
      if (!responses || Object.keys(responses).length === 0) problems.push(`${where}: needs at least one response`);
      for (const [status, response] of Object.entries(responses ?? {})) {
        if (!/^([1-5](?:[0-9]{2}|XX)|default)$/.test(status) && !status.startsWith('x-')) problems.push(`${where}: bad response key ${status}`);
        if (typeof response.description !== 'string') problems.push(`${where} ${status}: response needs a description`);
        onlyKeys(`${where} ${status}`, response, ['description', 'headers', 'content', 'links']);
        if (response.content) checkContent(`${where} ${status}`, response.content);
      }
      for (const requirement of [...(op.security ?? []), ...(doc.security ?? [])] as Array<Record<string, unknown>>) {
        for (const name of Object.keys(requirement)) if (!components.securitySchemes?.[name]) problems.push(`${where}: security names undeclared scheme ${name}`);
      }
    }
  }

  // Every local $ref resolves inside the document.
  const resolve = (pointer: string): unknown =>
    pointer
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, part) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), doc);
  const walk = (node: unknown, where: string): void => {
    if (Array.isArray(node)) node.forEach((child, i) => walk(child, `${where}[${i}]`));
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/') && resolve(value) === undefined) problems.push(`${where}: unresolved $ref ${value}`);
        walk(value, `${where}.${key}`);
      }
    }
  };
  walk(doc, '$');
  return problems;
}

for (const backend of backends()) {
  describe(`ops [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => h.close());

    it('GET / and GET /v1 answer with an index (name, version, where to go next), not 404', async () => {
      const openapi = (await json(await fetch(`${h.url}/openapi.json`))) as unknown as { info: { title: string; version: string } };
      for (const path of ['/', '/v1']) {
        const response = await fetch(`${h.url}${path}`);
        assert.equal(response.status, 200, path);
        const index = (await json(response)) as unknown as { name: string; version: string; links: Record<string, string> };
        assert.deepEqual([index.name, index.version], [openapi.info.title, openapi.info.version]);
        // Every link it gives is served: the sockets open, every other path answers (not 404).
        for (const [name, link] of Object.entries(index.links)) {
          if (name === 'websocket' || name === 'priceIngest') {
            const socket = new WebSocket(`${h.url.replace(/^http/, 'ws')}${link}`);
            await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
            socket.close();
            continue;
          }
          const target = await fetch(`${h.url}${link}`, name === 'legacy' ? { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } } : {});
          assert.notEqual(target.status, 404, `${name}: ${link}`);
          await target.body?.cancel();
        }
      }
    });

    it('GET /healthz answers ok', async () => {
      const response = await fetch(`${h.url}/healthz`);
      assert.equal(response.status, 200);
      assert.deepEqual(await json(response), { status: 'ok' });
    });

    it('GET /readyz is 200 while serving and 503 while draining (liveness stays 200)', async () => {
      const ready = await fetch(`${h.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual(await json(ready), { status: 'ready', store: true });
      // What close() does first, so a load balancer stops sending before the listener goes away.
      h.node.context.draining.value = true;
      try {
        const draining = await fetch(`${h.url}/readyz`);
        assert.equal(draining.status, 503);
        assert.equal((await json(draining)).status, 'not ready');
        assert.equal((await fetch(`${h.url}/healthz`)).status, 200, 'a draining node is still alive');
        assert.equal((await fetch(`${h.url}/v1/time`)).status, 200, 'and still finishes requests');
      } finally {
        h.node.context.draining.value = false;
      }
      assert.equal((await fetch(`${h.url}/readyz`)).status, 200);
    });

    it('GET /metrics counts requests by route template and status', async () => {
      const before = requestCounts(await (await fetch(`${h.url}/metrics`)).text());
      for (let i = 0; i < 3; i++) assert.equal((await fetch(`${h.url}/v1/time`)).status, 200);
      for (const id of ['rfq_one', 'rfq_two']) assert.equal((await fetch(`${h.url}/v1/rfq/requests/${id}`)).status, 401);
      assert.equal((await fetch(`${h.url}/no/such/route/${Date.now()}`)).status, 404);

      const response = await fetch(`${h.url}/metrics`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      assert.match(text, /# TYPE rfq_http_requests_total counter/);
      assert.match(text, /# TYPE rfq_http_request_duration_seconds histogram/);
      const after = requestCounts(text);
      const delta = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
      assert.equal(delta('GET /v1/time 200'), 3);
      assert.equal(delta('GET /v1/rfq/requests/:id 401'), 2, 'labelled by the route template, not the raw path');
      assert.equal(delta('GET unmatched 404'), 1, 'unknown paths share one label (bounded cardinality)');
      assert.ok(![...after.keys()].some((key) => key.includes('rfq_one') || key.includes('/no/such/route')), 'no raw paths as labels');
      assert.match(text, /rfq_http_request_duration_seconds_bucket\{le="0\.001",method="GET",route="\/v1\/time"\} \d+/);
      assert.match(text, /^process_cpu_user_seconds_total /m, 'default process metrics are exported');
    });

    it('GET /openapi.json is a valid OpenAPI 3.1 document with the v1 paths and components', async () => {
      const response = await fetch(`${h.url}/openapi.json`);
      assert.equal(response.status, 200);
      const doc = (await json(response)) as Record<string, any>;
      assert.equal(doc.openapi, '3.1.0');
      assert.equal(doc.info.title, 'rfq-service');
      const problems = openApi31Problems(doc);
      assert.deepEqual(problems, [], problems.join('\n'));

      assert.ok(doc.paths['/v1/rfq/requests']?.post && doc.paths['/v1/rfq/requests']?.get, 'create and list RFQs');
      assert.ok(doc.paths['/v1/auth/api-keys']?.post && doc.paths['/v1/auth/api-keys']?.get, 'issue and list API keys');
      for (const path of ['/v1/auth/challenge', '/v1/auth/api-keys/{accessKey}', '/v1/rfq/instruments', '/v1/rfq/balances', '/v1/rfq/ledger', '/v1/time']) {
        assert.ok(doc.paths[path], `documents ${path}`);
      }
      assert.ok(!Object.keys(doc.paths).some((p) => p.includes(':')), 'path parameters are written {name}, not :name');
      for (const hidden of ['/healthz', '/readyz', '/metrics', '/openapi.json']) assert.ok(!doc.paths[hidden], `${hidden} is not part of the API document`);
      assert.deepEqual(Object.keys(doc.components.securitySchemes), ['hmac', 'adminToken']);
      assert.equal(doc.components.securitySchemes.hmac.type, 'http');
      // Each operation publishes the auth its route enforces.
      assert.deepEqual(doc.paths['/v1/rfq/requests'].post.security, [{ hmac: [] }]);
      assert.equal(doc.paths['/v1/rfq/quotes'].post['x-auth'], 'maker');
      assert.deepEqual(doc.paths['/admin/v1/settings'].get.security, [{ adminToken: [] }]);
      assert.deepEqual(doc.paths['/v1/auth/challenge'].post.security, []);

      // Errors are documented with the envelope (bodies are named components: test/api/openapi-components.test.ts).
      const named = (schema: { $ref?: string }) => (schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema);
      const createRfq = doc.paths['/v1/rfq/requests'].post;
      assert.ok(named(createRfq.requestBody.content['application/json'].schema).properties.instrumentId);
      const error400 = named(createRfq.responses['400'].content['application/json'].schema);
      assert.deepEqual(error400.required, ['error']);
      assert.deepEqual(error400.properties.error.required, ['code', 'message']);
    });

    it('answers an unknown route with the 404 envelope', async () => {
      for (const [method, path] of [['GET', '/nope'], ['POST', '/v1/nope'], ['DELETE', '/v1/time'], ['GET', '/v2/rfq/requests']] as const) {
        const response = await fetch(`${h.url}${path}?token=secret-value`, { method });
        assert.equal(response.status, 404, `${method} ${path}`);
        const body = await json(response);
        assert.deepEqual(Object.keys(body), ['error']);
        assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message']);
        assert.equal(body.error.code, 'NOT_FOUND');
        assert.equal(body.error.message, `no route ${method} ${path}`, 'names the route, not the query');
      }
    });

    it('refuses a malformed JSON body with 400 INVALID_REQUEST', async () => {
      for (const text of ['{bad', '{"a":1,}', '[1, 2', 'nul']) {
        const response = await fetch(`${h.url}/v1/auth/challenge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
        assert.equal(response.status, 400, text);
        const body = await json(response);
        assert.equal(body.error.code, 'INVALID_REQUEST');
        assert.deepEqual(body.error.details?.errors, [{ field: '(body)', reason: 'json', message: 'body is not valid JSON' }]);
      }
    });

    it('refuses a body that is not application/json with 415', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
        const response = await fetch(`${h.url}/v1/auth/challenge`, { method: 'POST', headers: { 'content-type': contentType }, body: '{}' });
        assert.equal(response.status, 415, contentType);
        const body = await json(response);
        assert.equal(body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
      }
      const charset = await fetch(`${h.url}/v1/auth/challenge`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{}' });
      assert.equal(charset.status, 200, 'a charset parameter is fine');
    });

    it('refuses a body over the size limit with 413', async () => {
      const body = JSON.stringify({ padding: 'x'.repeat(300 * 1024) });
      const response = await fetch(`${h.url}/v1/auth/challenge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.equal(response.status, 413);
      assert.deepEqual(await json(response), { error: { code: 'PAYLOAD_TOO_LARGE', message: 'request body is too large' } });
      const { client } = await h.newUser();
      await assert.rejects(client.signed('POST', '/v1/rfq/requests', { rawBody: body }), (error: unknown) => error instanceof ApiError && error.status === 413);
      assert.equal((await fetch(`${h.url}/healthz`)).status, 200, 'the node is unaffected');
    });
  });

  describe(`ops: internal failure [${backend}]`, () => {
    it('answers 500 INTERNAL revealing nothing, logs the cause, and readiness fails', async () => {
      const logged: Array<Record<string, unknown>> = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
      const h = await startHarness(backend, { logger });
      try {
        const { client } = await h.newUser();
        assert.equal((await client.balances()).balances.length, 0);
        // The store goes away under a running node (what a lost database looks like to a request).
        await h.node.store.close();
        const path = '/v1/rfq/balances';
        const response = await fetch(`${h.url}${path}`, { headers: { ...signRequest(client.credentials!, Date.now(), 'GET', path, '', '') } });
        assert.equal(response.status, 500);
        const text = await response.text();
        const body = JSON.parse(text) as { error: { code: string; message: string; details: { requestId: string } } };
        assert.deepEqual(Object.keys(body.error.details), ['requestId'], 'only the request id, to match the log line');
        assert.deepEqual({ ...body, error: { ...body.error, details: undefined } }, { error: { code: 'INTERNAL', message: 'internal server error', details: undefined } });
        for (const leak of ['stack', 'at ', 'pool', 'PGlite', 'pg', 'sql', 'Error', '/src/']) assert.ok(!text.includes(leak), `response mentions ${leak}: ${text}`);
        assert.equal(response.headers.get('x-powered-by'), null);
        const failure = logged.find((entry) => entry.msg === 'request failed');
        assert.ok(failure, 'the cause is logged');
        assert.equal(failure.level, 50, 'at error level');
        assert.ok(failure.err && typeof (failure.err as { stack?: unknown }).stack === 'string', 'with the stack, in the log only');
        assert.ok(typeof failure.reqId === 'string' || typeof failure.reqId === 'number', 'with the request id');
        assert.equal(String(failure.reqId), body.error.details.requestId, 'the response names the logged request');

        const ready = await fetch(`${h.url}/readyz`);
        assert.equal(ready.status, 503);
        assert.deepEqual(await json(ready), { status: 'not ready', store: false });
      } finally {
        await h.close();
      }
    });
  });

  describe(`ops: rate limits [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend, { rateLimit: { perSourcePerSec: 5, perKeyPerSec: 3 }, logLevel: 'silent' });
    });
    after(async () => h.close());

    it('limits each source address per second with 429 RATE_LIMITED and the rate headers', async () => {
      let responses: Response[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const start = await freshSecond();
        responses = await Promise.all(Array.from({ length: 8 }, () => fetch(`${h.url}/v1/time`)));
        if (sameSecond(start, Date.now())) break; // the burst stayed inside one window
      }
      const ok = responses.filter((r) => r.status === 200);
      const limited = responses.filter((r) => r.status === 429);
      assert.equal(ok.length, 5, 'exactly the per-source budget is admitted');
      assert.equal(limited.length, 3);
      assert.deepEqual(ok.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort(), [0, 1, 2, 3, 4]);
      for (const response of [...ok, ...limited]) {
        assert.equal(response.headers.get('x-ratelimit-limit'), '5');
        assert.equal(response.headers.get('x-ratelimit-reset'), '1', 'seconds until the window resets');
      }
      for (const response of limited) {
        assert.equal(response.headers.get('x-ratelimit-remaining'), '0');
        assert.equal(response.headers.get('retry-after'), '1');
        const body = await json(response);
        assert.equal(body.error.code, 'RATE_LIMITED');
        assert.equal(typeof body.error.details?.retryAfterMs, 'number');
        assert.ok((body.error.details!.retryAfterMs as number) <= 1000);
      }
      // The next window admits again.
      await freshSecond();
      assert.equal((await fetch(`${h.url}/v1/time`)).status, 200);
    });

    it('limits each access key per second, below the source limit', async () => {
      await freshSecond();
      const { client } = await h.newUser(); // two source-limited calls, in an earlier window than the burst
      const timestamps = new TimestampSource();
      let statuses: number[] = [];
      let responses: Response[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const start = await freshSecond();
        responses = [];
        for (let i = 0; i < 5; i++) responses.push(await signedGet(client, timestamps, h.url, '/v1/rfq/balances'));
        if (sameSecond(start, Date.now())) break;
      }
      statuses = responses.map((r) => r.status);
      assert.deepEqual(statuses, [200, 200, 200, 429, 429], 'three per key, although the source allows five');
      assert.deepEqual(responses.map((r) => r.headers.get('x-ratelimit-limit')), ['3', '3', '3', '3', '3'], 'the key limit is the one reported');
      assert.deepEqual(responses.map((r) => r.headers.get('x-ratelimit-remaining')), ['2', '1', '0', '0', '0']);
      const refused = responses[3]!;
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.equal((await json(refused)).error.code, 'RATE_LIMITED');
      // The next window admits the key again.
      await freshSecond();
      assert.equal((await signedGet(client, timestamps, h.url, '/v1/rfq/balances')).status, 200);
    });
  });

  describe(`ops: rate limit shared across nodes [${backend}]`, () => {
    it('a second node on the same database refuses a key once the first has spent its budget', async (t) => {
      if (backend !== 'postgres') {
        t.skip('needs two nodes on one PostgreSQL server (PGlite is a single in-process database); set TEST_DATABASE_URL');
        return;
      }
      const database = await createTestDatabase('postgres');
      const rateLimit = { perKeyPerSec: 10, perSourcePerSec: 100_000 };
      const secretKey = generateSecretKey(); // one deployment: every node shares the key sealing API secrets
      const a = await startHarness('postgres', { database, rateLimit, secretKey, logLevel: 'silent' });
      const b = await startHarness('postgres', { database, rateLimit, secretKey, logLevel: 'silent', seed: false });
      try {
        const { client } = await a.newUser();
        const timestamps = new TimestampSource();
        // The key's count in the shared window row: a node's sync adds its hits there and reads back the total.
        const sharedHits = async (at: number) => {
          const row = await a.node.store.db.selectFrom('rate_limit_windows').select('hits').where('bucket', '=', `key:${client.credentials!.accessKey}`).where('window_start', '=', Math.floor(at / 1000)).executeTakeFirst();
          return Number(row?.hits ?? 0);
        };
        let outcome: { onA: number[]; bFirst: number; bAfterSync: number[] } | null = null;
        for (let attempt = 0; attempt < 3 && !outcome; attempt++) {
          const start = await freshSecond();
          const onA: number[] = [];
          for (let i = 0; i < 11; i++) onA.push((await signedGet(client, timestamps, a.url, '/v1/rfq/balances')).status);
          const admittedOnA = onA.filter((s) => s === 200).length;
          await waitFor(async () => (await sharedHits(start)) >= admittedOnA, 'node A pushes its hits to the shared window row', { pollMs: 10, timeoutMs: 5000 });
          // Node B has never seen this key: it admits what arrives before its own first sync ...
          const bFirst = (await signedGet(client, timestamps, b.url, '/v1/rfq/balances')).status;
          // ... then learns the cluster-wide count at that sync, which adds B's own hit to the row.
          if (bFirst === 200) await waitFor(async () => (await sharedHits(start)) >= admittedOnA + 1, 'node B syncs with the shared window row', { pollMs: 10, timeoutMs: 5000 });
          const bAfterSync: number[] = [];
          for (let i = 0; i < 3; i++) bAfterSync.push((await signedGet(client, timestamps, b.url, '/v1/rfq/balances')).status);
          if (sameSecond(start, Date.now())) outcome = { onA, bFirst, bAfterSync };
        }
        assert.ok(outcome, 'the scenario fits inside one one-second window');
        assert.deepEqual(outcome.onA, [...Array(10).fill(200), 429], 'node A admits the budget of 10, then refuses');
        assert.deepEqual(outcome.bAfterSync, [429, 429, 429], 'node B refuses the key once it has synced: the budget is shared');
        const admitted = outcome.onA.filter((s) => s === 200).length + (outcome.bFirst === 200 ? 1 : 0);
        assert.ok(admitted <= rateLimit.perKeyPerSec + 1, `cluster-wide overshoot is at most what B admitted before its first sync (admitted ${admitted})`);
        // A fresh window is open on both nodes again.
        await freshSecond();
        assert.equal((await signedGet(client, timestamps, b.url, '/v1/rfq/balances')).status, 200);
      } finally {
        await b.close();
        await a.close();
        await database.drop();
      }
    });
  });
}
