/**
 * What the edge answers before any route runs, over real HTTP: `/metrics` behind
 * its optional bearer token (RFQ_METRICS_TOKEN), and requests Fastify or Node refuse (an over-long
 * path segment, a request line over 16 KiB, bytes that are not HTTP) in the service's envelope.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { backends } from '../helpers/backends.ts';
import { ADMIN_TOKEN, startHarness, type Harness } from '../helpers/harness.ts';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** Sends raw bytes and resolves with everything the server wrote before closing. */
function raw(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(bytes));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(data));
  });
}

function envelopeOf(response: string): { status: number; body: { error: { code: string; details?: { errors?: Array<{ reason: string }> } } } } {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
}

for (const backend of backends()) {
  describe(`edge answers [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend, { seed: false, metricsToken: METRICS_TOKEN });
    });
    after(async () => {
      await h.close();
    });

    it('serves /metrics only with its bearer token when one is set', async () => {
      for (const authorization of [undefined, 'Bearer wrong-token-wrong-token-wrong', `Bearer ${METRICS_TOKEN}x`, `Bearer ${ADMIN_TOKEN}`]) {
        const response = await fetch(`${h.url}/metrics`, { headers: authorization ? { authorization } : {} });
        assert.equal(response.status, 401, authorization);
        assert.equal(response.headers.get('www-authenticate'), 'Bearer realm="metrics"');
        assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'UNAUTHENTICATED');
      }
      const response = await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      assert.equal(response.status, 200);
      assert.match(await response.text(), /http_requests_total/);
    });

    it('answers an over-long path segment in the envelope (400 INVALID_REQUEST, tooLong)', async () => {
      for (const path of [`/admin/v1/rfqs/${'a'.repeat(500)}`, `/v1/rfq/quotes/${'b'.repeat(5000)}/cancel`]) {
        const response = await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
        assert.equal(response.status, 400, path.slice(0, 40));
        const body = (await response.json()) as { error: { code: string; details: { errors: Array<{ field: string; reason: string }> } } };
        assert.equal(body.error.code, 'INVALID_REQUEST');
        assert.deepEqual(body.error.details.errors.map((e) => [e.field, e.reason]), [['(path)', 'tooLong']]);
      }
    });

    it('answers a request line over 16 KiB and bytes that are not HTTP in the envelope', async () => {
      const long = envelopeOf(await raw(h.url, `GET /v1/rfq/rfqs/${'c'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`));
      assert.equal(long.status, 400);
      assert.equal(long.body.error.code, 'INVALID_REQUEST');
      assert.equal(long.body.error.details?.errors?.[0]?.reason, 'tooLong');
      const junk = envelopeOf(await raw(h.url, 'HELLO\x00 there\r\n\r\n'));
      assert.equal(junk.status, 400);
      assert.equal(junk.body.error.code, 'INVALID_REQUEST');
      assert.equal(junk.body.error.details?.errors?.[0]?.reason, 'malformed');
      // The node keeps serving.
      assert.equal((await fetch(`${h.url}/v1/time`)).status, 200);
    });
  });
}
