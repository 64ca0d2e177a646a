/**
 * Maker price ingest (`/v1/rfq/prices/ws`) and the `prices` topic over real sockets: the ingest
 * handshake (makers only, signing its own path), ladder validation, top of book aggregated across
 * makers and pushed on change only, never crossed across makers, staleness, withdrawal on
 * disconnect, native keepalive.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { backends } from '../helpers/backends.ts';
import { useWsHarness } from '../helpers/ws-harness.ts';
import type { RfqClient } from '../../src/client/rfq-client.ts';
import { INGEST_PATH, SESSION_PATH, authFrame, signedAt, subscribe, type Frame } from './test-socket.ts';
import { metricSamples } from '../helpers/metrics.ts';
import { elapse, waitFor } from '../helpers/eventually.ts';

const ETH = 'ETH-USDC-SPOT';

for (const backend of backends()) {
  describe(`ws prices [${backend}]`, () => {
    const ws = useWsHarness(backend);
    const { session, withLimits } = ws;

    const ingest = (client: RfqClient) => ws.session(client, INGEST_PATH);
    const ladder = (instrumentId: string, bids: unknown, asks: unknown) => ({ kind: 'ladder', instrumentId, bids, asks, ts: Date.now() });

    it('authenticates makers only, with the auth frame signed for the ingest path', async () => {
      const maker = await ws.h.newMaker();
      const socket = await ws.connect(INGEST_PATH);
      socket.send(authFrame(maker.client, signedAt(), maker.client.credentials!.secret, INGEST_PATH));
      assert.deepEqual(await socket.next(), { kind: 'health', userId: maker.client.login!.userId, isMaker: true });

      const wrongPath = await ws.connect(INGEST_PATH);
      wrongPath.send(authFrame(maker.client, signedAt(), maker.client.credentials!.secret, SESSION_PATH));
      assert.equal((await wrongPath.next()).code, 'AUTH_REQUIRED');
      assert.equal(await wrongPath.closed, 4001);

      const user = await ws.h.newUser();
      const taker = await ws.connect(INGEST_PATH);
      taker.send(authFrame(user.client, signedAt(), user.client.credentials!.secret, INGEST_PATH));
      const refused = await taker.next();
      assert.equal(refused.code, 'AUTH_REQUIRED');
      assert.match(String(refused.message), /active maker/);
      assert.equal(await taker.closed, 4001);
    });

    it('answers a bad ladder with an error frame and keeps the socket open', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      const socket = await ingest(maker.client);
      const errorFor = async (frame: Frame | string) => {
        socket.send(frame);
        const error = await socket.next();
        assert.equal(error.kind, 'error', JSON.stringify(error));
        return error;
      };
      const unordered = await errorFor(ladder(ETH, [['3000', '1'], ['3001', '1']], []));
      assert.equal(unordered.code, 'INVALID_REQUEST');
      assert.deepEqual((unordered.details as { errors: Frame[] }).errors[0], { field: 'bids[1][0]', reason: 'order', message: 'bids prices must be strictly descending' });
      assert.equal((await errorFor(ladder(ETH, [['3000', '1']], [['2999', '1']]))).code, 'INVALID_REQUEST'); // crossed
      assert.equal((await errorFor(ladder(ETH, [['-1', '1']], []))).code, 'INVALID_REQUEST');
      assert.equal((await errorFor(ladder(ETH, [['3000', '0.0000000000000000001']], []))).code, 'AMOUNT_OVER_PRECISE');
      const unknown = await errorFor(ladder('DOGE-USDC-SPOT', [], []));
      assert.deepEqual([unknown.code, unknown.details], ['INSTRUMENT_NOT_FOUND', { instrumentId: 'DOGE-USDC-SPOT', available: ['BTC-USDC-SPOT', 'ETH-USDC-SPOT'] }]);
      assert.equal((await errorFor(ladder('BTC-USDC-SPOT', [], []))).code, 'MAKER_NOT_APPROVED');
      assert.equal((await errorFor({ kind: 'ladder', instrumentId: ETH, bids: [], asks: [] })).code, 'INVALID_REQUEST'); // no ts
      assert.equal((await errorFor({ kind: 'ping' })).code, 'INVALID_REQUEST'); // native keepalive only
      assert.equal((await errorFor('not json')).code, 'INVALID_REQUEST');
      assert.equal(socket.closeCode, null);
    });

    it('pushes top of book aggregated across makers, on change only, attributed to nobody', async () => {
      const [a, b] = [await ws.h.newMaker(['ETH-USDC']), await ws.h.newMaker(['ETH-USDC'])];
      const ingestA = await ingest(a.client);
      const ingestB = await ingest(b.client);
      const taker = await session((await ws.h.newUser()).client);
      assert.deepEqual(await subscribe(taker, { topic: 'prices', instrumentId: ETH }), { kind: 'subscribed', topic: 'prices', instrumentId: ETH });
      // Other tests' makers may still show ETH prices; start from this test's first tick.
      ingestA.send(ladder(ETH, [['1000', '1'], ['999', '5']], [['1010', '2']]));
      let tick = await taker.next((f) => f.kind === 'price' && (f.bid as Frame | null)?.price === '1000');
      assert.deepEqual(Object.keys(tick).sort(), ['ask', 'bid', 'instrumentId', 'kind', 'ts']);
      assert.deepEqual([tick.bid, tick.ask], [{ price: '1000', size: '1' }, { price: '1010', size: '2' }]);
      assert.equal(typeof tick.ts, 'number');

      ingestB.send(ladder(ETH, [['1000.0', '0.5']], [['1005', '1']]));
      tick = await taker.next();
      assert.deepEqual([tick.bid, tick.ask], [{ price: '1000', size: '1.5' }, { price: '1005', size: '1' }]);

      // The same top again (deeper levels changed): no frame. B's next ladder is handled after
      // this one, so its tick is the next frame only if this one sent none.
      ingestB.send(ladder(ETH, [['1000', '0.5'], ['998', '9']], [['1005', '1']]));

      // B withdraws its ask: A's ask is the best again; a later subscriber gets the current tick.
      ingestB.send(ladder(ETH, [['1000', '0.5']], []));
      tick = await taker.next();
      assert.deepEqual([tick.bid, tick.ask], [{ price: '1000', size: '1.5' }, { price: '1010', size: '2' }]);
      const late = await session((await ws.h.newUser()).client);
      await subscribe(late, { topic: 'prices', instrumentId: ETH });
      const current = await late.next();
      assert.deepEqual([current.kind, current.bid, current.ask], ['price', tick.bid, tick.ask]);

      // A maker's disconnect removes its prices at once; with nobody left a side is null.
      ingestA.close();
      tick = await taker.next();
      assert.deepEqual([tick.bid, tick.ask], [{ price: '1000', size: '0.5' }, null]);

      taker.send({ kind: 'unsubscribe', topic: 'prices', instrumentId: ETH });
      assert.deepEqual(await taker.next(), { kind: 'unsubscribed', topic: 'prices', instrumentId: ETH });
      ingestB.send(ladder(ETH, [['1001', '1']], []));
      assert.deepEqual((await late.next((f) => (f.bid as Frame | null)?.price === '1001')).bid, { price: '1001', size: '1' }); // still subscribed there
      // The tick went to every subscriber at once: one to taker would come before this pong.
      await taker.quiet();
      ingestB.close();
    });

    it('never pushes a book crossed across makers: the older crossing side is set aside and flagged', async () => {
      const [a, b] = [await ws.h.newMaker(['ETH-USDC']), await ws.h.newMaker(['ETH-USDC'])];
      const ingestA = await ingest(a.client);
      const ingestB = await ingest(b.client);
      const taker = await session((await ws.h.newUser()).client);
      await subscribe(taker, { topic: 'prices', instrumentId: ETH });
      const crossingsBefore = (await metricSamples(ws.h.url)).get('rfq_price_crossings_total') ?? 0;
      ingestA.send(ladder(ETH, [['60000', '1']], [['60100', '1']]));
      let tick = await taker.next((f) => f.kind === 'price' && (f.bid as Frame | null)?.price === '60000');
      await elapse(10, 'recency is judged to the millisecond (equally recent sides are both set aside): B\'s ladder comes later');
      // B's ask crosses A's older bid: A's bid is set aside, B's prices shown.
      ingestB.send(ladder(ETH, [['59800', '2']], [['59900', '2']]));
      tick = await taker.next();
      assert.deepEqual([tick.bid, tick.ask, tick.setAside], [{ price: '59800', size: '2' }, { price: '59900', size: '2' }, 1]);
      assert.equal((await metricSamples(ws.h.url)).get('rfq_price_crossings_total'), crossingsBefore + 1);
      // A moves below B's ask: nothing crosses, nothing is set aside, the flag is gone.
      ingestA.send(ladder(ETH, [['59850', '1']], [['59950', '1']]));
      tick = await taker.next();
      assert.deepEqual([tick.bid, tick.ask, 'setAside' in tick], [{ price: '59850', size: '1' }, { price: '59900', size: '2' }, false]);
      ingestA.close();
      ingestB.close();
    });

    it('drops a ladder that was not refreshed within priceStaleMs', async () => {
      await withLimits({ priceStaleMs: 300 }, async () => {
        const maker = await ws.h.newMaker(['BTC-USDC']);
        const socket = await ingest(maker.client);
        const taker = await session((await ws.h.newUser()).client);
        await subscribe(taker, { topic: 'prices', instrumentId: 'BTC-USDC-SPOT' });
        const started = Date.now();
        socket.send(ladder('BTC-USDC-SPOT', [['60000', '0.25']], [['60100', '0.5']]));
        const tick = await taker.next();
        assert.deepEqual([tick.bid, tick.ask], [{ price: '60000', size: '0.25' }, { price: '60100', size: '0.5' }]);
        const stale = await taker.next(() => true, 3000);
        assert.deepEqual([stale.kind, stale.bid, stale.ask], ['price', null, null]);
        assert.ok(Date.now() - started >= 250, 'went stale too early');
        assert.equal(socket.closeCode, null);
      });
    });

    it('refuses prices for an unknown instrument or without instrumentId; the socket stays open', async () => {
      const socket = await session((await ws.h.newUser()).client);
      socket.send({ kind: 'subscribe', topic: 'prices', instrumentId: 'DOGE-USDC-SPOT' });
      assert.equal((await socket.next()).code, 'UNSUPPORTED_CHANNEL');
      socket.send({ kind: 'subscribe', topic: 'prices' });
      assert.equal((await socket.next()).code, 'INVALID_REQUEST');
      socket.send({ kind: 'ping' });
      assert.deepEqual(await socket.next(), { kind: 'pong' });
    });

    it('keeps the ingest socket alive with native pings and cuts off a peer that does not answer', async () => {
      const maker = await ws.h.newMaker();
      const url = `${ws.h.url.replace(/^http/, 'ws')}${INGEST_PATH}`;
      await withLimits({ pingIntervalMs: 100 }, async () => {
        const answering = new WebSocket(url);
        const silent = new WebSocket(url, { autoPong: false });
        for (const ws of [answering, silent]) {
          await new Promise((resolve) => ws.once('open', resolve));
          ws.send(JSON.stringify(authFrame(maker.client, signedAt(), maker.client.credentials!.secret, INGEST_PATH)));
        }
        let pings = 0;
        answering.on('ping', () => pings++);
        const silentClosed = new Promise<number>((resolve) => silent.once('close', (code) => resolve(code)));
        assert.equal(await silentClosed, 1006); // terminated, no close handshake
        await waitFor(() => pings >= 3, 'three pings to the answering connection');
        assert.equal(answering.readyState, WebSocket.OPEN);
        answering.close();
      });
    });
  });
}
