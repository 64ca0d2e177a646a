/**
 * `/asyncapi.json` as an AsyncAPI tool reads it: parsed by @asyncapi/parser with no error and no
 * warning, both socket paths as channels, every message's payload resolving to a component, and
 * the REST objects the frames carry referenced, not copied. The one diagnostic left is an info,
 * `asyncapi-latest-version` (3.1.0 exists): 3.0.0 is the version tools read most widely, and the
 * document uses nothing 3.1 adds.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Parser } from '@asyncapi/parser';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { FRAME_MESSAGES } from '../../src/api/schemas/ws-frames.ts';

type Json = Record<string, any>;

/** Diagnostics accepted, by code, with why (see the header). */
const ACCEPTED = new Set(['asyncapi-latest-version']);
const ERROR = 0;
const WARNING = 1;

for (const backend of backends()) {
  describe(`/asyncapi.json [${backend}]`, () => {
    let h: Harness;
    let raw: string;
    before(async () => {
      h = await startHarness(backend, { logLevel: 'silent' });
      const response = await fetch(`${h.url}/asyncapi.json`);
      assert.equal(response.status, 200, 'served without authentication');
      raw = await response.text();
    });
    after(async () => h?.close());

    it('parses as AsyncAPI 3.0.0 with no error or warning, both paths as channels with their messages', async () => {
      const { document, diagnostics } = await new Parser().parse(raw);
      const serious = diagnostics.filter((d) => d.severity === ERROR || d.severity === WARNING);
      assert.deepEqual(serious.map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`), []);
      assert.deepEqual(diagnostics.map((d) => d.code).filter((code) => !ACCEPTED.has(String(code))), [], 'only the accepted infos');
      assert.ok(document, 'a parsed document');
      assert.equal(document.version(), '3.0.0');
      const addresses = document.channels().all().map((c) => c.address()).sort();
      assert.deepEqual(addresses, ['/v1/rfq/prices/ws', '/v1/rfq/ws']);
      for (const channel of document.channels().all()) {
        const expected = Object.entries(FRAME_MESSAGES).filter(([, m]) => m.paths.includes(channel.address() as never)).map(([name]) => name).sort();
        assert.deepEqual(channel.messages().all().map((m) => m.id()).sort(), expected, channel.address()!);
      }
      const actions = document.operations().all().map((o) => `${o.action()} ${o.channels().all()[0]!.address()}`).sort();
      assert.deepEqual(actions, ['receive /v1/rfq/prices/ws', 'receive /v1/rfq/ws', 'send /v1/rfq/prices/ws', 'send /v1/rfq/ws']);
    });

    it('reuses the REST components the frames carry and the host it was asked on', () => {
      const doc = JSON.parse(raw) as Json;
      const allOf = (name: string) => (doc.components.schemas[name].allOf as Json[]).map((part) => part.$ref).filter(Boolean);
      assert.deepEqual(allOf('RfqStatusFrame'), ['#/components/schemas/Rfq']);
      assert.deepEqual(allOf('QuoteUpdateFrame'), ['#/components/schemas/Quote']);
      assert.deepEqual(allOf('QuoteStatusFrame'), ['#/components/schemas/MakerQuote']);
      assert.deepEqual(allOf('OpenRfqFrame'), ['#/components/schemas/OpenRfq']);
      assert.deepEqual(allOf('BalanceSnapshotFrame'), ['#/components/schemas/BalanceList']);
      assert.equal(doc.servers.service.host, new URL(h.url).host);
    });
  });
}
