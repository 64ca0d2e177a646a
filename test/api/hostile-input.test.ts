/**
 * Bad bytes are never a 500: a property test (fast-check) over every string
 * and amount field of every route in the OpenAPI document (path, query and body, nested fields
 * included) and of every client frame on both socket paths. Each case sends an otherwise
 * well-formed request with one field replaced by a hostile value (NUL and other control
 * characters, amounts beyond 2^256, 64-digit integers, long or odd Unicode) over real HTTP or a
 * real socket, and requires a client error, never a 500 or an `INTERNAL` frame, and nothing
 * logged at error level. A failure prints its seed and the shrunk value.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { backends } from '../helpers/backends.ts';
import { capturingLogger } from '../helpers/error-log.ts';
import { startHarness, ADMIN_TOKEN, type Harness } from '../helpers/harness.ts';
import { ApiError, HttpTransport } from '../../src/client/http.ts';
import type { RfqClient } from '../../src/client/rfq-client.ts';
import { INGEST_PATH, TestSocket, authFrame, openSession, openSocket, signedAt, type Frame } from '../ws/test-socket.ts';
import { elapse } from '../helpers/eventually.ts';

type Schema = Record<string, unknown>;
interface Operation { method: string; path: string; auth: string; params: Array<{ in: string; name: string; schema: Schema }>; body: Schema | null }
/** One field of one route: where the hostile value goes. */
interface Target { op: Operation; where: 'path' | 'query' | 'body'; field: string[] }

const HOSTILE_EXAMPLES = [
  '\u0000', 'a\u0000b', '\u0007', '\u001b[31m', '\u007f', '\u0085', '9'.repeat(64), '1' + '0'.repeat(78),
  (2n ** 256n).toString(), (2n ** 256n - 1n).toString(), `${'9'.repeat(60)}.${'9'.repeat(3)}`, '0.' + '0'.repeat(61) + '1',
  '-1', '1e400', '\u202e', '\ud800', '\uffff', 'x'.repeat(5000), '', ' ', '../../etc', "'; drop table rfqs; --", '%00',
];

const hostile: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_EXAMPLES),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.bigInt({ min: 0n, max: 10n ** 90n }).map(String),
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 70n }), fc.bigInt({ min: 0n, max: 10n ** 40n })).map(([a, b]) => `${a}.${b}`),
);

/** Text holding an unpaired UTF-16 surrogate (high or low, anywhere in it). */
const loneSurrogate: fc.Arbitrary<string> = fc
  .tuple(fc.string({ maxLength: 6 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 6 }))
  .map(([before, unit, after]) => `${before}${String.fromCharCode(unit)}${after}`);

/** A value the schema accepts, so the hostile field is the only thing wrong with a request. */
function example(schema: Schema | undefined, name: string): unknown {
  if (!schema) return 'x';
  if (Array.isArray(schema.anyOf)) return example((schema.anyOf as Schema[]).find((s) => s.type !== 'null'), name);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  switch (schema.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) out[key] = example(child, key);
      return out;
    }
    case 'array':
      return [example(schema.items as Schema, name)];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return false;
    default:
      return stringExample(schema, name);
  }
}

function stringExample(schema: Schema, name: string): string {
  const pattern = String(schema.pattern ?? '');
  if (pattern.includes('(SPOT|PERP)')) return 'ETH-USDC-SPOT';
  if (pattern.includes('{40}')) return '0x00000000000000000000000000000000000000aa';
  if (pattern.includes('{64}')) return `0x${'0'.repeat(64)}`;
  if (pattern.startsWith('^0x')) return '0x00';
  if (pattern.includes('[A-Z0-9]{1,16}$')) return name === 'quote' ? 'USDC' : 'ETH';
  if (schema.format === 'uuid' || /id$/i.test(name)) return randomUUID();
  if (/amount|qty|limit|notional/i.test(name) || String(schema.description ?? '').includes('ecimal')) return '1';
  return 'x';
}

/** Every string leaf of a schema, as a property path. */
function stringLeaves(schema: Schema | undefined, path: string[] = []): string[][] {
  if (!schema) return [];
  if (Array.isArray(schema.anyOf)) return stringLeaves((schema.anyOf as Schema[]).find((s) => s.type !== 'null'), path);
  if (schema.type === 'object') return Object.entries((schema.properties ?? {}) as Record<string, Schema>).flatMap(([k, s]) => stringLeaves(s, [...path, k]));
  if (schema.type === 'array') return stringLeaves(schema.items as Schema, [...path, '0']);
  if (schema.type === 'string' || schema.type === undefined) return [path];
  return [];
}

function setAt(value: Record<string, unknown>, path: string[], leaf: unknown): void {
  let node = value as Record<string, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path[path.length - 1]!] = leaf;
}

/** Percent-encodes every UTF-8 byte (lone surrogates become U+FFFD, as on any wire). */
function encodeSegment(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('') || '%20';
}

/** The schema with every `#/components/schemas/X` reference replaced by that component (the document names its bodies). */
function dereference(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((item) => dereference(item, components));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    const target = components[ref.slice('#/components/schemas/'.length)];
    assert.ok(target !== undefined, `unresolved ${ref}`);
    return dereference(target, components);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, dereference(value, components)]));
}

function operations(h: Harness): Operation[] {
  const doc = h.node.app.swagger() as unknown as { paths: Record<string, Record<string, Schema>>; components?: { schemas?: Record<string, unknown> } };
  const components = doc.components?.schemas ?? {};
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content;
      const body = content?.['application/json']?.schema;
      ops.push({ method: method.toUpperCase(), path, auth: String(op['x-auth'] ?? 'none'), params: (op.parameters ?? []) as Operation['params'], body: body === undefined ? null : (dereference(body, components) as Schema) });
    }
  }
  return ops;
}

function targets(ops: Operation[]): Target[] {
  const out: Target[] = [];
  for (const op of ops) {
    for (const p of op.params) if (p.in === 'path' || p.in === 'query') out.push({ op, where: p.in, field: [p.name] });
    for (const leaf of stringLeaves(op.body ?? undefined)) if (leaf.length > 0) out.push({ op, where: 'body', field: leaf });
  }
  return out;
}

for (const backend of backends()) {
  describe(`hostile input never gives a 500 [${backend}]`, () => {
    let h: Harness;
    let taker: RfqClient;
    let maker: RfqClient;
    const errors: string[] = [];
    const sockets: TestSocket[] = [];
    before(async () => {
      h = await startHarness(backend, { logger: capturingLogger(errors) });
      const t = await h.newUser();
      taker = t.client;
      await h.fund(t.account.address, { USDC: '100000', ETH: '10' });
      maker = (await h.newMaker(['ETH-USDC'])).client;
    });
    after(async () => {
      for (const s of sockets) s.close();
      await h.close();
    });

    async function send(target: Target, value: string): Promise<number> {
      return (await sendWith(target, value, false)).status;
    }

    /** Sends `value` in the target's field, or (`asKey`) as an extra key at the body's top level. */
    async function sendWith(target: Target, value: string, asKey: boolean): Promise<{ status: number; code?: string; reason?: string }> {
      const { op } = target;
      const query: Record<string, string> = {};
      let path = op.path;
      for (const p of op.params) {
        const v = target.where === p.in && target.field[0] === p.name ? value : String(example(p.schema, p.name));
        if (p.in === 'path') path = path.replace(`{${p.name}}`, target.where === 'path' && target.field[0] === p.name ? encodeSegment(v) : encodeURIComponent(v));
        else if (target.where === 'query' && target.field[0] === p.name) query[p.name] = v;
      }
      let body: unknown;
      if (op.body) {
        body = example(op.body, '');
        if (asKey) (body as Record<string, unknown>)[value] = 1;
        else if (target.where === 'body') setAt(body as Record<string, unknown>, target.field, value);
      }
      const options = { ...(Object.keys(query).length ? { query } : {}), ...(body === undefined ? {} : { body }) };
      try {
        if (op.auth === 'admin') await new HttpTransport(h.url).send(op.method, path, { ...options, bearer: ADMIN_TOKEN });
        else if (op.auth === 'maker') await maker.signed(op.method, path, options);
        else await taker.signed(op.method, path, options);
        return { status: 200 };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const first = (error.details?.errors as { reason?: string }[] | undefined)?.[0];
        return { status: error.status, code: error.code, ...(first?.reason === undefined ? {} : { reason: first.reason }) };
      }
    }

    it('every string and amount field of every route', async () => {
      const all = targets(operations(h));
      assert.ok(all.length >= 40, `only ${all.length} fields found`);
      assert.ok(all.filter((t) => t.where === 'body').length >= 30, 'the body fields are among them');
      for (const target of all) {
        await fc.assert(
          fc.asyncProperty(hostile, async (value) => {
            const status = await send(target, value);
            assert.ok(status < 500, `${target.op.method} ${target.op.path} ${target.where}.${target.field.join('.')}=${JSON.stringify(value).slice(0, 120)} gave ${status}`);
          }),
          { numRuns: 4, examples: HOSTILE_EXAMPLES.map((v) => [v]) },
        );
      }
      assert.deepEqual(errors, [], 'client input was logged at error level');
    });

    it('a lone surrogate in any body field or key of any route is refused as bad bytes', async () => {
      const bodies = targets(operations(h)).filter((t) => t.where === 'body');
      const ops = [...new Set(bodies.map((t) => t.op))];
      assert.ok(bodies.length >= 30, `only ${bodies.length} body fields found`);
      const check = async (target: Target, value: string, key: boolean): Promise<void> => {
        const status = await sendWith(target, value, key);
        assert.equal(status.status, 400, `${target.op.method} ${target.op.path} ${key ? 'key' : target.field.join('.')}=${JSON.stringify(value)} gave ${status.status}`);
        assert.equal(status.code, 'INVALID_REQUEST');
        assert.equal(status.reason, 'controlCharacter');
      };
      for (const target of bodies) await fc.assert(fc.asyncProperty(loneSurrogate, (v) => check(target, v, false)), { numRuns: 2, examples: [['\ud800'], ['\udfff']] });
      for (const op of ops) {
        const target = bodies.find((t) => t.op === op)!;
        await fc.assert(fc.asyncProperty(loneSurrogate, (v) => check(target, v, true)), { numRuns: 2, examples: [['\ud800']] });
      }
      assert.deepEqual(errors, [], 'client input was logged at error level');
    });

    /** Sends `frame`, then a sentinel, and returns every frame received before the sentinel's answer. */
    async function exchange(socket: TestSocket, frame: Frame, sentinel: Frame, isAnswer: (f: Frame) => boolean): Promise<Frame[]> {
      socket.send(frame);
      socket.send(sentinel);
      const seen: Frame[] = [];
      for (;;) {
        const f = await socket.next(() => true, 5000);
        if (isAnswer(f)) return seen;
        seen.push(f);
      }
    }

    it('every string field of every client frame', async () => {
      const session = await openSession(h.url, maker, sockets);
      const frames = (v: string): Frame[] => [
        { kind: v },
        { kind: 'subscribe', topic: v },
        { kind: 'subscribe', topic: 'openRfqs', instrumentId: v },
        { kind: 'subscribe', topic: 'prices', instrumentId: v },
        { kind: 'unsubscribe', topic: v },
        { kind: 'unsubscribe', topic: 'openRfqs', instrumentId: v },
        { kind: 'subscribe', topic: 'balances', [v]: 1 },
      ];
      await fc.assert(
        fc.asyncProperty(hostile, async (v) => {
          for (const frame of frames(v)) {
            const seen = await exchange(session, frame, { kind: 'ping' }, (f) => f.kind === 'pong');
            assert.ok(!seen.some((f) => f.code === 'INTERNAL'), `${JSON.stringify(frame).slice(0, 120)} gave ${JSON.stringify(seen)}`);
            await elapse(45, 'under the inbound frame rate limit');
          }
        }),
        { numRuns: 8, examples: HOSTILE_EXAMPLES.slice(0, 12).map((v) => [v]) },
      );

      const ingest = await openSession(h.url, maker, sockets, INGEST_PATH);
      const ladders = (v: string): Frame[] => [
        { kind: 'ladder', instrumentId: v, bids: [], asks: [], ts: Date.now() },
        { kind: 'ladder', instrumentId: 'ETH-USDC-SPOT', bids: [[v, '1']], asks: [], ts: Date.now() },
        { kind: 'ladder', instrumentId: 'ETH-USDC-SPOT', bids: [], asks: [['3000', v]], ts: Date.now() },
      ];
      const answered = (f: Frame) => f.kind === 'error' && String(f.message).includes('"ping"');
      await fc.assert(
        fc.asyncProperty(hostile, async (v) => {
          for (const frame of ladders(v)) {
            const seen = await exchange(ingest, frame, { kind: 'ping' }, answered);
            assert.ok(!seen.some((f) => f.code === 'INTERNAL'), `${JSON.stringify(frame).slice(0, 120)} gave ${JSON.stringify(seen)}`);
            await elapse(45, 'under the inbound frame rate limit');
          }
        }),
        { numRuns: 8, examples: HOSTILE_EXAMPLES.slice(0, 12).map((v) => [v]) },
      );

      // A lone surrogate in any string or key of a frame is refused as bad bytes, on both sockets.
      await fc.assert(
        fc.asyncProperty(loneSurrogate, async (v) => {
          for (const [socket, frame, isAnswer] of [
            ...frames(v).map((frame) => [session, frame, (f: Frame) => f.kind === 'pong'] as const),
            ...ladders(v).map((frame) => [ingest, frame, answered] as const),
          ]) {
            const seen = await exchange(socket, frame, { kind: 'ping' }, isAnswer);
            assert.ok(seen.some((f) => f.kind === 'error' && /unpaired surrogates/.test(String(f.message))), `${JSON.stringify(frame)} gave ${JSON.stringify(seen)}`);
            await elapse(45, 'under the inbound frame rate limit');
          }
        }),
        { numRuns: 2, examples: [['\ud800']] },
      );

      // The auth frame: each hostile value on a fresh socket, refused with AUTH_REQUIRED (never INTERNAL).
      await fc.assert(
        fc.asyncProperty(hostile, fc.constantFrom('accessKey', 'signature'), async (v, field) => {
          const socket = await openSocket(h.url, sockets);
          socket.send({ ...authFrame(maker, signedAt()), [field]: v });
          const answer = await socket.next(() => true, 5000);
          assert.equal(answer.code, 'AUTH_REQUIRED', JSON.stringify(answer));
          socket.close();
        }),
        { numRuns: 6, examples: HOSTILE_EXAMPLES.slice(0, 6).map((v) => [v, 'accessKey'] as [string, string]) },
      );
      assert.deepEqual(errors, [], 'client input was logged at error level');
    });
  });
}
