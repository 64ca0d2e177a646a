/**
 * The venue weight budget (src/venue/venue-budget.ts) on the real transport: requests are
 * admitted by priority before they are sent (a refused one never reaches the venue), item-priced
 * replies are charged after, a 429 stops every priority for the time its reply names, and two
 * nodes on one store spend one budget.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startLoopbackServer, type LoopbackServer } from '../helpers/loopback-server.ts';
import { backends } from '../helpers/backends.ts';
import { openMigratedStore } from '../helpers/backends.ts';
import { VenueTransport } from '../../src/venue/venue-transport.ts';
import { VenueBudget, VenueBudgetRefusedError, retryAfterMs } from '../../src/venue/venue-budget.ts';
import { VenueHttp } from '../../src/venue/omnibus/venue-http.ts';
import { VenueUnavailableError } from '../../src/services/v0/venue-port.ts';

describe('venue weight budget', () => {
  let server: LoopbackServer;
  let received = 0;
  let tooMany: string | null = null;

  before(async () => {
    server = await startLoopbackServer((_request, body, response) => {
      received += 1;
      const payload = JSON.parse(body) as { type?: string };
      if (tooMany !== null) {
        response.writeHead(429, { 'content-type': 'application/json', ...(tooMany === '' ? {} : { 'retry-after': tooMany }) });
        return response.end('null');
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(payload.type === 'userFillsByTime' ? Array(45).fill({}) : { ok: true }));
    });
  });
  after(() => server.close());

  const refusal = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

  it('refuses the lower priorities first as the minute fills, and a refused request is never sent', async () => {
    let now = 120_000;
    const budget = new VenueBudget({ db: null, weightPerMin: 100, now: () => now });
    const transport = new VenueTransport({ apiUrl: server.url, timeout: null, budget });
    const meta = (priority: 1 | 2 | 3 | 4) => transport.post('info', { type: 'meta' }, { timeoutMs: 1000, priority });
    await meta(4);
    await meta(4);
    const sentBefore = received;
    const background = await refusal(meta(4));
    assert.ok(background instanceof VenueBudgetRefusedError, String(background));
    assert.equal(received, sentBefore, 'a refused request is not sent');
    await meta(3); // 60 of 75
    assert.ok((await refusal(meta(3))) instanceof VenueBudgetRefusedError);
    await meta(2); // 80 of 90
    assert.ok((await refusal(meta(2))) instanceof VenueBudgetRefusedError);
    await meta(1); // 100 of 100
    assert.ok((await refusal(transport.post('exchange', { action: { type: 'order', orders: [{}] } }, { timeoutMs: 1000, priority: 1 }))) instanceof VenueBudgetRefusedError);
    const stats = budget.stats();
    assert.deepEqual(stats.spent, { 1: 20, 2: 20, 3: 20, 4: 40 });
    assert.deepEqual(stats.refused, { 1: 1, 2: 20, 3: 20, 4: 20 });
    // Two minutes on, the spent minute has slid out.
    now += 120_000;
    await meta(4);
  });

  it('charges the fill history 1 per 20 fills it returned', async () => {
    const budget = new VenueBudget({ db: null, weightPerMin: 1000, now: () => 60_000 });
    const transport = new VenueTransport({ apiUrl: server.url, timeout: null, budget });
    await transport.post('info', { type: 'userFillsByTime', user: '0x', startTime: 0 }, { timeoutMs: 1000, priority: 2 });
    assert.equal(budget.stats().spent[2], 22);
  });

  it('a 429 stops every priority for its Retry-After, and a refused send is an unanswered one for /v0', async () => {
    let now = 600_000;
    const budget = new VenueBudget({ db: null, weightPerMin: 1000, now: () => now });
    const http = new VenueHttp(server.url, budget);
    tooMany = '2';
    try {
      const first = await refusal(http.info({ type: 'meta' }, 1000, 3));
      assert.ok(first instanceof VenueUnavailableError);
    } finally {
      tooMany = null;
    }
    assert.equal(budget.stats().tooManyRequests, 1);
    const sentBefore = received;
    const send = await refusal(http.exchange({ action: { type: 'order', orders: [{}] } }, 1000, 1));
    assert.ok(send instanceof VenueUnavailableError && send.cause instanceof VenueBudgetRefusedError, String(send));
    assert.equal(received, sentBefore);
    now += 1_999;
    assert.ok((await refusal(http.info({ type: 'meta' }, 1000, 1))) instanceof VenueUnavailableError);
    now += 2;
    await http.exchange({ action: { type: 'order', orders: [{}] } }, 1000, 1);
    await http.info({ type: 'meta' }, 1000, 4);
  });

  it('reads Retry-After as seconds or as a date', () => {
    assert.equal(retryAfterMs('3', 0), 3000);
    assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6_000);
    assert.equal(retryAfterMs(null, 0), null);
    assert.equal(retryAfterMs('soon', 0), null);
  });

  for (const backend of backends()) {
    it(`two nodes on one store spend one budget (${backend})`, async () => {
      const { store, close } = await openMigratedStore(backend);
      const now = () => 1_800_000 + 1_000;
      const a = new VenueBudget({ db: store.db, weightPerMin: 100, now, syncIntervalMs: 60_000 });
      const b = new VenueBudget({ db: store.db, weightPerMin: 100, now, syncIntervalMs: 60_000 });
      try {
        a.admit(20, 4);
        a.admit(20, 4);
        a.admit(20, 1);
        b.admit(20, 4); // b has not heard of a yet
        await a.sync();
        await b.sync();
        await a.sync();
        assert.equal(b.used(), 80);
        assert.equal(a.used(), 80);
        assert.throws(() => b.admit(20, 3), VenueBudgetRefusedError);
        b.admit(20, 1);
      } finally {
        a.close();
        b.close();
        await close();
      }
    });
  }
});
