/**
 * The outbound JSON POST (src/net/json-post.ts) against a loopback server: the reply as sent, and
 * every way a request ends without one (timeout, abort, a reply too long or cut off) as a
 * rejection, never a short body. Through viem (`rpcTransport`) a JSON-RPC call and an HTTP error
 * come out as with fetch.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';
import { createPublicClient, HttpRequestError } from 'viem';
import { JsonPostError, postJson, postJsonFetch } from '../../src/net/json-post.ts';
import { rpcTransport } from '../../src/chain/clients.ts';
import { elapse } from '../helpers/eventually.ts';

describe('postJson', () => {
  let server: LoopbackServer;
  let url: string;
  const seen: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];

  before(async () => {
    server = await startLoopbackServer((request, body, response) => {
      seen.push({ path: request.url!, headers: request.headers, body });
      if (request.url === '/silent') return; // never answers
      if (request.url === '/big') return response.end('x'.repeat(2048));
      if (request.url === '/slow') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"slow":');
        return; // the rest never comes
      }
      if (request.url === '/cut') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        response.write('{"partial":');
        setTimeout(() => response.socket?.destroy(), 20);
        return;
      }
      if (request.url === '/patient') {
        setTimeout(() => response.end('{"late":true}'), 1500);
        return;
      }
      if (request.url === '/teapot') {
        response.writeHead(418, 'I am a teapot', { 'content-type': 'text/plain' });
        return response.end('no coffee');
      }
      const { id } = JSON.parse(body) as { id?: number };
      response.writeHead(200, { 'content-type': 'application/json', 'x-twice': ['a', 'b'] });
      response.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x2a' }));
    });
    url = server.url;
  });
  after(() => server.close());

  it('sends the body as JSON and returns the status, headers and text as received', async () => {
    const reply = await postJson(`${url}/rpc`, JSON.stringify({ id: 7 }), { headers: { 'x-client': 'test' } });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'application/json');
    assert.equal(reply.headers.get('x-twice'), 'a, b');
    assert.deepEqual(JSON.parse(reply.text), { jsonrpc: '2.0', id: 7, result: '0x2a' });
    const request = seen.at(-1)!;
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['x-client'], 'test');
    assert.equal(request.body, '{"id":7}');
  });

  it('rejects when no complete reply comes within the timeout: none at all, or one begun and never ended', async () => {
    await assert.rejects(postJson(`${url}/silent`, '{}', { timeoutMs: 100 }), (error: unknown) => error instanceof JsonPostError && /within 100 ms/.test(error.message));
    await assert.rejects(postJson(`${url}/slow`, '{}', { timeoutMs: 100 }), (error: unknown) => error instanceof JsonPostError && /within 100 ms/.test(error.message));
  });

  it('rejects when its signal aborts, with the signal\'s reason', async () => {
    const controller = new AbortController();
    const pending = postJson(`${url}/silent`, '{}', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await assert.rejects(pending, /caller gave up/);
    await assert.rejects(postJson(`${url}/rpc`, '{}', { signal: AbortSignal.abort(new Error('before it began')) }), /before it began/);
  });

  it('refuses a reply longer than its cap and a reply cut off before its end', async () => {
    await assert.rejects(postJson(`${url}/big`, '{}', { maxBytes: 1024 }), /larger than 1024 bytes/);
    await assert.rejects(postJson(`${url}/cut`, '{}', { timeoutMs: 5000 }), /aborted|cut off/);
  });

  it('waits for a reply slower than the idle cutoff of kept-alive connections, and sends again after an idle second', async () => {
    assert.equal((await postJson(`${url}/patient`, '{}')).text, '{"late":true}');
    await elapse(1500, 'past the idle cutoff of the kept-alive connection');
    assert.equal((await postJson(`${url}/patient`, '{}')).text, '{"late":true}');
  });

  it('rejects a connection refused', async () => {
    const closed = http.createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    closed.close();
    await once(closed, 'close');
    await assert.rejects(postJson(`http://127.0.0.1:${port}/`, '{}'), /ECONNREFUSED/);
  });

  it('postJsonFetch answers as fetch does, and takes only what a JSON-RPC transport sends', async () => {
    const response = await postJsonFetch(`${url}/teapot`, { method: 'POST', body: '{}' });
    assert.equal(response.ok, false);
    assert.equal(response.status, 418);
    assert.equal(response.statusText, 'I am a teapot');
    assert.equal(await response.text(), 'no coffee');
    await assert.rejects(postJsonFetch(`${url}/rpc`, { method: 'GET' }), JsonPostError);
  });

  it('carries viem: a JSON-RPC call, and an HTTP error with its status', async () => {
    const client = createPublicClient({ transport: rpcTransport(`${url}/rpc`) });
    assert.equal(await client.getBlockNumber({ cacheTime: 0 }), 42n);
    const failing = createPublicClient({ transport: rpcTransport(`${url}/teapot`) });
    await assert.rejects(failing.getBlockNumber({ cacheTime: 0 }), (error: unknown) => {
      const cause = (error as { walk: (fn: (e: unknown) => boolean) => unknown }).walk((e) => e instanceof HttpRequestError) as HttpRequestError;
      return cause instanceof HttpRequestError && cause.status === 418;
    });
  });
});
