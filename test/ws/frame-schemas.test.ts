/**
 * Every frame a node sends validates against its message's schema (src/api/schemas/ws-frames.ts,
 * the payloads of /asyncapi.json) and carries no field the schema does not declare, so the
 * published document is the frames as sent. A maker and a taker go through every topic, an RFQ
 * with quotes, a re-quote, a maker's cancel, an accept that trips market-maker protection, an
 * RFQ cancel, replays (`fromSeq`, `resync`), refused frames, server and client keepalive and
 * unsubscribes; a maker's ingest socket sends good and bad ladders. Each received frame is
 * checked with TypeBox's compiled validator.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { backends } from '../helpers/backends.ts';
import { useWsHarness } from '../helpers/ws-harness.ts';
import { INSTRUMENT, fundedTaker, quotedRfq } from '../helpers/protection.ts';
import { FRAME_MESSAGES, serverMessageOf } from '../../src/api/schemas/ws-frames.ts';
import { INGEST_PATH, type Frame, type TestSocket } from './test-socket.ts';
import { elapse } from '../helpers/eventually.ts';

/** The property names a frame schema declares, through its `allOf` parts. */
function declared(schema: TSchema): Set<string> {
  const json = schema as { properties?: Record<string, unknown>; allOf?: TSchema[] };
  return new Set([...Object.keys(json.properties ?? {}), ...(json.allOf ?? []).flatMap((part) => [...declared(part)])]);
}

const validators = new Map(Object.entries(FRAME_MESSAGES).map(([name, message]) => [name, { check: Compile(message.schema), fields: declared(message.schema), message }]));

/** Each frame on `socket` (a socket of `path`) against its server message; returns the kinds seen. */
function checkAll(socket: TestSocket, path: string): string[] {
  for (const frame of socket.received) {
    const name = serverMessageOf(String(frame.kind));
    const validator = validators.get(name);
    assert.ok(validator && validator.message.direction === 'server', `a server message for ${JSON.stringify(frame)}`);
    assert.ok(validator.message.paths.includes(path as never), `${name} is a message of ${path}`);
    assert.ok(validator.check.Check(frame), `${JSON.stringify(frame)}\n${JSON.stringify([...validator.check.Errors(frame)], null, 2)}`);
    const undeclared = Object.keys(frame).filter((key) => !validator.fields.has(key));
    assert.deepEqual(undeclared, [], `${name} fields the schema does not declare: ${JSON.stringify(frame)}`);
  }
  return socket.received.map((f) => String(f.kind));
}

/** Subscribes and waits for the ack, passing over the baselines of earlier subscriptions. */
async function subscribe(socket: TestSocket, selector: Frame): Promise<void> {
  socket.send({ kind: 'subscribe', ...selector });
  await socket.next((f) => f.kind === 'subscribed' && f.topic === selector.topic);
}

for (const backend of backends()) {
  describe(`ws frames match their schemas [${backend}]`, () => {
    const ws = useWsHarness(backend);

    it('every frame sent to a maker and a taker, on both paths, validates against its message schema', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC', 'BTC-USDC']);
      const taker = await fundedTaker(ws.h);
      const takerSocket = await ws.session(taker);
      const makerSocket = await ws.session(maker.client);
      const ingest = await ws.session(maker.client, INGEST_PATH);

      for (const topic of ['balances', 'rfqStatus', 'quotes']) await subscribe(takerSocket, { topic });
      await subscribe(takerSocket, { topic: 'prices', instrumentId: INSTRUMENT });
      for (const topic of ['balances', 'quoteStatus']) await subscribe(makerSocket, { topic });
      for (const topic of ['prices', 'openRfqs']) await subscribe(makerSocket, { topic, instrumentId: INSTRUMENT });
      await subscribe(makerSocket, { topic: 'openRfqs', instrumentId: INSTRUMENT }); // again: the ack only

      // Refused frames: each an error, the socket open.
      const refused = async (socket: TestSocket, frame: Frame | string, code: string) => {
        socket.send(frame);
        assert.equal((await socket.next((f) => f.kind === 'error')).code, code);
      };
      await refused(takerSocket, 'not json', 'INVALID_REQUEST');
      await refused(takerSocket, { kind: 'subscribe', topic: 'nope' }, 'UNSUPPORTED_CHANNEL');
      await refused(takerSocket, { kind: 'subscribe', topic: 'quoteStatus' }, 'UNSUPPORTED_CHANNEL');
      await refused(takerSocket, { kind: 'subscribe', topic: 'prices' }, 'INVALID_REQUEST');
      await refused(takerSocket, { kind: 'subscribe', topic: 'prices', instrumentId: INSTRUMENT, fromSeq: 1 }, 'INVALID_REQUEST');
      await refused(takerSocket, { kind: 'frobnicate' }, 'INVALID_REQUEST');

      // Prices: a good ladder reaches both sessions, bad ones are refused on the ingest socket.
      ingest.send({ kind: 'ladder', instrumentId: INSTRUMENT, bids: [['2990', '1.5']], asks: [['3010', '2']], ts: Date.now() });
      await takerSocket.next((f) => f.kind === 'price');
      await makerSocket.next((f) => f.kind === 'price');
      await refused(ingest, { kind: 'ladder', instrumentId: INSTRUMENT, bids: [['3000', '1'], ['3001', '1']], asks: [], ts: Date.now() }, 'INVALID_REQUEST');
      await refused(ingest, { kind: 'ladder', instrumentId: 'NOPE-USDC-SPOT', bids: [], asks: [], ts: Date.now() }, 'INSTRUMENT_NOT_FOUND');
      await refused(ingest, { kind: 'subscribe', topic: 'prices' }, 'INVALID_REQUEST');

      // An RFQ, a quote, a re-quote, a second RFQ whose quote the protection will cancel, a third the maker cancels.
      await maker.client.putProtection({ instrumentId: INSTRUMENT, windowMs: 60_000, maxSelectedQuotes: 1 });
      const won = await quotedRfq(taker, maker.client);
      await makerSocket.next((f) => f.kind === 'rfq' && f.id === won.rfqId);
      const requote = await maker.client.submitQuote({ rfqId: won.rfqId, instrumentId: INSTRUMENT, side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '2995' } });
      await takerSocket.next((f) => f.kind === 'quoteUpdate' && f.quoteId === requote.quoteId && f.version === requote.version);
      const open = await quotedRfq(taker, maker.client);
      const withdrawn = await quotedRfq(taker, maker.client);
      await maker.client.cancelQuote(withdrawn.quoteId);
      await makerSocket.next((f) => f.kind === 'quoteStatus' && f.quoteId === withdrawn.quoteId && f.status === 'CANCELLED');

      await taker.accept(won.rfqId, { quoteId: requote.quoteId });
      await makerSocket.next((f) => f.kind === 'protection');
      await makerSocket.next((f) => f.kind === 'quoteStatus' && f.quoteId === open.quoteId && f.status === 'CANCELLED');
      const cancelled = await taker.createRfq({ instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: false, windowMs: 60_000 });
      await taker.cancelRfq(cancelled.rfqId);
      await takerSocket.next((f) => f.kind === 'rfqStatus' && f.id === cancelled.rfqId && f.status === 'CANCELLED');

      // Replays on a second session: served from fromSeq, and a resync when fromSeq is beyond the topic.
      const replay = await ws.session(taker);
      await subscribe(replay, { topic: 'rfqStatus', fromSeq: 0 });
      await subscribe(replay, { topic: 'quotes', fromSeq: 1_000_000 });
      await subscribe(replay, { topic: 'balances', fromSeq: 1 });

      // Keepalive both ways: a client ping answered, server pings answered with pong.
      takerSocket.send({ kind: 'ping' });
      await takerSocket.next((f) => f.kind === 'pong');
      const pinged = await ws.withLimits({ pingIntervalMs: 100 }, () => ws.session(maker.client));
      await pinged.next((f) => f.kind === 'ping');
      pinged.send({ kind: 'pong' });

      // Unsubscribes: one instrument, every instrument of a topic, an account topic, a topic never held.
      for (const frame of [{ topic: 'prices', instrumentId: INSTRUMENT }, { topic: 'openRfqs' }, { topic: 'quoteStatus' }, { topic: 'nope' }]) {
        makerSocket.send({ kind: 'unsubscribe', ...frame });
        await makerSocket.next((f) => f.kind === 'unsubscribed' && f.topic === frame.topic);
      }

      await elapse(200, 'frames still in flight arrive and are checked too');
      const kinds = new Set<string>();
      for (const socket of [takerSocket, makerSocket, replay, pinged]) for (const kind of checkAll(socket, '/v1/rfq/ws')) kinds.add(kind);
      for (const kind of checkAll(ingest, INGEST_PATH)) kinds.add(`ingest ${kind}`);
      const expected = ['health', 'subscribed', 'unsubscribed', 'error', 'ping', 'pong', 'price', 'balanceSnapshot', 'rfqStatus', 'quoteUpdate', 'quoteStatus', 'protection', 'rfq', 'ingest health', 'ingest error'];
      assert.deepEqual(expected.filter((kind) => !kinds.has(kind)), [], 'every server message was sent and checked');
      const resynced = replay.received.filter((f) => f.resync === true);
      assert.ok(resynced.some((f) => f.kind === 'subscribed') && resynced.some((f) => f.kind === 'quoteUpdate'), 'a resync ack and baseline were checked');
    });
  });
}
