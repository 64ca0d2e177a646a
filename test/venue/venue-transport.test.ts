/**
 * The venue transport (src/venue/venue-transport.ts) keeps the SDK transport's contract while
 * sending over node:http: the JSON body on success; HttpRequestError with the reply for a refusal
 * (venue-http reads its status), for a non-JSON reply and for a `{ type: "error" }` body; and
 * HttpRequestError with the cause when nothing answers. The SDK's InfoClient takes it as its own.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';
import { HttpRequestError, InfoClient } from '@nktkas/hyperliquid';
import { VenueTransport } from '../../src/venue/venue-transport.ts';

describe('VenueTransport', () => {
  let server: LoopbackServer;
  let url: string;
  const bodies: unknown[] = [];

  before(async () => {
    server = await startLoopbackServer((request, body, response) => {
      const payload = JSON.parse(body) as { type?: string };
      bodies.push({ path: request.url, payload });
      const json = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (payload.type === 'refuse') return json(422, 'Failed to deserialize the JSON body');
      if (payload.type === 'fail') return json(200, { type: 'error', message: 'no such thing' });
      if (payload.type === 'html') {
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end('<html/>');
      }
      if (payload.type === 'silent') return;
      if (payload.type === 'allMids') return json(200, { ETH: '3000.5' });
      json(200, { echoed: payload });
    });
    url = server.url;
  });
  after(() => server.close());

  const transport = () => new VenueTransport({ apiUrl: url, timeout: null });

  it('posts to the endpoint and returns the parsed body', async () => {
    assert.deepEqual(await transport().request('info', { type: 'meta' }), { echoed: { type: 'meta' } });
    assert.deepEqual(bodies.at(-1), { path: '/info', payload: { type: 'meta' } });
    await transport().post('exchange', { type: 'order' }, { timeoutMs: 1000, priority: 1 });
    assert.deepEqual(bodies.at(-1), { path: '/exchange', payload: { type: 'order' } });
  });

  it('a refusal, a non-JSON reply and an error body are HttpRequestError with the reply', async () => {
    const refused = await transport().request('exchange', { type: 'refuse' }).then(() => null, (error: unknown) => error);
    assert.ok(refused instanceof HttpRequestError);
    assert.equal(refused.response?.status, 422);
    assert.match(refused.message, /^422 .*Failed to deserialize/);
    const html = await transport().request('info', { type: 'html' }).then(() => null, (error: unknown) => error);
    assert.ok(html instanceof HttpRequestError);
    assert.equal(html.response?.status, 200);
    const failed = await transport().request('info', { type: 'fail' }).then(() => null, (error: unknown) => error);
    assert.ok(failed instanceof HttpRequestError);
    assert.match(failed.message, /no such thing/);
  });

  it('no answer in time, or nobody listening, is HttpRequestError with the cause and no reply', async () => {
    const late = await transport().post('info', { type: 'silent' }, { timeoutMs: 100, priority: 2 }).then(() => null, (error: unknown) => error);
    assert.ok(late instanceof HttpRequestError);
    assert.equal(late.response, undefined);
    assert.match(String((late.cause as Error).message), /within 100 ms/);
    const nobody = new VenueTransport({ apiUrl: 'http://127.0.0.1:1', timeout: 1000 });
    const refused = await nobody.request('info', { type: 'meta' }).then(() => null, (error: unknown) => error);
    assert.ok(refused instanceof HttpRequestError);
    assert.match(String((refused.cause as Error).message), /ECONNREFUSED/);
  });

  it('the SDK\'s InfoClient takes it', async () => {
    const info = new InfoClient({ transport: transport() });
    assert.deepEqual(await info.allMids(), { ETH: '3000.5' });
  });
});
