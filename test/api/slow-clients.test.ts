/**
 * Slow clients over real sockets: a request body trickled one byte at a time is
 * cut within the request timeout, an idle keep-alive connection is closed, and connections past
 * the per-node cap are closed at once while the node keeps serving.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { waitFor } from '../helpers/eventually.ts';

function connect(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The connections the node's HTTP server holds (what its connection cap counts). */
function connections(h: Harness): Promise<number> {
  return new Promise((resolve, reject) => h.node.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
}

/** Resolves with what the server sent and when it closed the socket. */
function closed(socket: net.Socket): Promise<{ at: number; data: string }> {
  let data = '';
  socket.on('data', (chunk) => (data += chunk.toString()));
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.once('close', () => resolve({ at: Date.now(), data })));
}

for (const backend of backends()) {
  describe(`slow clients [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend, { seed: false, http: { requestTimeoutMs: 2000, headersTimeoutMs: 1000, keepAliveTimeoutMs: 500, maxConnections: 8 } });
    });
    after(async () => {
      await h.close();
    });

    it('cuts a body sent one byte at a time within the request timeout', async () => {
      const socket = await connect(h.url);
      const end = closed(socket);
      const started = Date.now();
      socket.write('POST /v1/auth/challenge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');
      const trickle = setInterval(() => socket.writable && socket.write(' '), 300);
      const { at, data } = await end;
      clearInterval(trickle);
      assert.ok(at - started <= 2000 + 1500, `held for ${at - started} ms`);
      assert.ok(data === '' || data.startsWith('HTTP/1.1 408'), data.slice(0, 80));
    });

    it('closes an idle keep-alive connection', async () => {
      const socket = await connect(h.url);
      const end = closed(socket);
      socket.write('GET /v1/time HTTP/1.1\r\nHost: x\r\n\r\n');
      const started = Date.now();
      const { at, data } = await end;
      assert.match(data, /^HTTP\/1.1 200/);
      assert.ok(at - started < 3000, `idle connection held ${at - started} ms`);
    });

    it('closes connections past the cap at once and keeps serving', async () => {
      const held = await Promise.all(Array.from({ length: 8 }, () => connect(h.url)));
      // Keep them from idling out: each has a request in flight (headers never finished).
      for (const s of held) s.write('GET /v1/time HTTP/1.1\r\n');
      await waitFor(async () => (await connections(h)) >= held.length, 'the server holds every connection');
      const extra = await connect(h.url);
      const started = Date.now();
      const { at } = await closed(extra);
      assert.ok(at - started < 500, 'the connection past the cap was not refused at once');
      for (const s of held) s.destroy();
      await waitFor(async () => (await connections(h)) < held.length, 'the server frees a connection slot');
      const response = await fetch(`${h.url}/v1/time`);
      assert.equal(response.status, 200);
    });
  });
}
