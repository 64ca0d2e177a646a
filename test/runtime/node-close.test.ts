/**
 * A node's close says what it is waiting for (`RunningNode.closing`), so a stop that hangs can be
 * reported by its part (the simulation's "did not stop within 60 s" names it): the HTTP part
 * first, while a request is still in flight, and nothing once the close is done.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startHarness } from '../helpers/harness.ts';
import { waitFor } from '../helpers/eventually.ts';

describe('node close stages', () => {
  it('names the HTTP part while a request holds it, and nothing once closed', async () => {
    const h = await startHarness('pglite', { seed: false });
    assert.equal(h.node.closing, null, 'not closing yet');
    // A request whose body never ends keeps the HTTP part of the close waiting.
    const url = new URL('/v1/rfq/requests', h.url);
    // Closed only once the server has the request: a socket it has not read yet is idle, and the
    // close drops it at once.
    const received = new Promise((resolve) => h.node.app.server.once('request', resolve));
    const held = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000' } });
    held.on('error', () => undefined);
    held.write('{');
    await received;
    const closed = h.node.close();
    await waitFor(() => h.node.closing?.startsWith('http'), 'the close reaches its HTTP part');
    assert.equal(h.node.closing, 'http (requests and sockets in flight)');
    held.destroy();
    await closed;
    assert.equal(h.node.closing, null);
    await h.close(); // the node is closed already: this drops the test database
  });
});
