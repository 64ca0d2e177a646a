/**
 * Deployments behind a proxy over real HTTP and sockets. With RFQ_TRUST_PROXY
 * off (the default), or naming proxies the peer is not, a forged `X-Forwarded-For` is ignored: the
 * socket peer is the source of every per-source limit. When the peer is a trusted proxy (a hop
 * count, or its address in the list), the client address it forwards is the source, so clients
 * behind one balancer keep separate budgets, and entries a client prepends itself are not believed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../helpers/backends.ts';
import { startHarness, type Harness } from '../helpers/harness.ts';
import { TestSocket, SESSION_PATH } from '../ws/test-socket.ts';
import { CLOSE_AUTH_FAILED, CLOSE_CONNECTION_CAP } from '../../src/ws/frames.ts';
import { parseTrustProxy, type TrustProxy } from '../../src/runtime/config.ts';
import { elapse } from '../helpers/eventually.ts';

const PER_SOURCE_PER_SEC = 2;

/** The source the node recorded for a sign-in challenge asked with this forwarded header. */
async function challengeSource(h: Harness, forwarded: string): Promise<string> {
  const response = await fetch(`${h.url}/v1/auth/challenge`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': forwarded }, body: '{}' });
  assert.equal(response.status, 200);
  const { nonce } = (await response.json()) as { nonce: string };
  const row = await h.node.store.db.selectFrom('auth_challenges').select('source').where('nonce', '=', nonce).executeTakeFirstOrThrow();
  return row.source as string;
}

/** Waits until a one-second rate-limit window has just opened (each test starts with a full budget). */
function nextWindow(): Promise<void> {
  return elapse(1000 - (Date.now() % 1000) + 20, 'a fresh one-second rate-limit window opens');
}

/** Statuses of concurrent requests sent at the start of one window. */
async function burst(h: Harness, forwarded: string[]): Promise<number[]> {
  await nextWindow();
  const responses = await Promise.all(forwarded.map((xff) => fetch(`${h.url}/v1/time`, { headers: { 'x-forwarded-for': xff } })));
  return responses.map((r) => r.status);
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

/** Opens a WebSocket whose upgrade request carries `forwarded`; resolves once open. */
async function socketFrom(h: Harness, forwarded: string): Promise<TestSocket> {
  const socket = new TestSocket(`${h.url.replace('http', 'ws')}${SESSION_PATH}`, { headers: { 'x-forwarded-for': forwarded } });
  await socket.opened();
  return socket;
}

const settings: Array<{ name: string; trust: TrustProxy; trusted: boolean }> = [
  { name: 'off (default)', trust: false, trusted: false },
  { name: 'a proxy list without the peer', trust: ['10.0.0.0/8', '192.168.1.1'], trusted: false },
  { name: 'one hop', trust: 1, trusted: true },
  { name: 'the peer by CIDR', trust: ['127.0.0.0/8'], trusted: true },
];

for (const backend of backends()) {
  for (const setting of settings) {
    describe(`RFQ_TRUST_PROXY ${setting.name} [${backend}]`, () => {
      let h: Harness;
      before(async () => {
        h = await startHarness(backend, {
          seed: false,
          http: { trustProxy: setting.trust },
          rateLimit: { perKeyPerSec: 100, perSourcePerSec: PER_SOURCE_PER_SEC },
          ws: { maxUnauthenticatedPerSource: 1 },
        });
      });
      after(async () => {
        await h.close();
      });

      it(setting.trusted ? 'takes the client address the proxy forwards, not what the client prepended' : 'ignores a forged X-Forwarded-For', async () => {
        await nextWindow();
        assert.equal(await challengeSource(h, '198.51.100.9'), setting.trusted ? '198.51.100.9' : '127.0.0.1');
        assert.equal(await challengeSource(h, '203.0.113.66, 198.51.100.9'), setting.trusted ? '198.51.100.9' : '127.0.0.1');
      });

      it(setting.trusted ? 'gives each forwarded client its own rate budget' : 'keeps one rate budget for the peer whatever it forwards', async () => {
        const distinct = ['198.51.100.1', '198.51.100.2', '198.51.100.3'];
        const statuses = await burst(h, distinct);
        if (setting.trusted) assert.deepEqual(statuses, [200, 200, 200]);
        else assert.equal(count(statuses, 429), distinct.length - PER_SOURCE_PER_SEC, statuses.join(','));
        if (setting.trusted) {
          // One client forging different leftmost entries still spends one budget.
          const forged = await burst(h, ['1.1.1.1, 198.51.100.7', '2.2.2.2, 198.51.100.7', '3.3.3.3, 198.51.100.7']);
          assert.equal(count(forged, 429), 1, forged.join(','));
        }
      });

      it(setting.trusted ? 'counts unauthenticated sockets per forwarded client' : 'counts unauthenticated sockets per peer', async () => {
        await nextWindow();
        const first = await socketFrom(h, '198.51.100.20');
        const second = await socketFrom(h, '198.51.100.21');
        try {
          if (setting.trusted) {
            // A refusal is sent on open, so it would come before the answer to a first frame that
            // is not `auth`: that answer comes first, and the socket was open until it.
            second.send({ kind: 'ping' });
            const answer = await second.next();
            assert.deepEqual([answer.code, answer.message], ['AUTH_REQUIRED', 'the first frame must be `auth`']);
            assert.equal(await second.closed, CLOSE_AUTH_FAILED, 'closed for its first frame, not by the cap');
            const third = await socketFrom(h, '203.0.113.5, 198.51.100.20');
            assert.equal((await third.next()).code, 'AUTH_REQUIRED');
            assert.equal(await third.closed, CLOSE_CONNECTION_CAP);
          } else {
            assert.equal((await second.next()).code, 'AUTH_REQUIRED');
            assert.equal(await second.closed, CLOSE_CONNECTION_CAP);
          }
        } finally {
          first.close();
          second.close();
          await Promise.all([first.closed, second.closed]);
        }
      });
    });
  }
}

describe('RFQ_TRUST_PROXY parsing', () => {
  it('reads off, a hop count, or addresses and CIDR ranges, and names what is wrong', () => {
    for (const off of [null, '0', 'false', 'off']) assert.equal(parseTrustProxy(off), false);
    assert.equal(parseTrustProxy('2'), 2);
    assert.deepEqual(parseTrustProxy('10.0.0.0/8, 192.168.1.1,loopback,fd00::/8'), ['10.0.0.0/8', '192.168.1.1', 'loopback', 'fd00::/8']);
    for (const bad of ['17', 'true', '10.0.0.0/33', '10.0.0/8', 'proxy.example', '10.0.0.1/8/1', '::1/129']) {
      assert.equal(typeof parseTrustProxy(bad), 'string', bad);
    }
  });
});
