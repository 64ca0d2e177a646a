/**
 * The frames of a SWEEP RFQ: makers' `rfq` frame carries fill and minFillQty; at the sweep each
 * selected maker is told of its own leg only (a cut one with its legs as cut and `selectedQty`),
 * the maker left out of its NOT_SELECTED, and the taker's `rfqStatus` carries the fills.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../helpers/backends.ts';
import { useWsHarness } from '../helpers/ws-harness.ts';
import { subscribe, type Frame } from './test-socket.ts';

for (const backend of backends()) {
  describe(`SWEEP frames [${backend}]`, () => {
    const ws = useWsHarness(backend);

    it('tells each maker of its own leg only, and the taker of every fill', async () => {
      const { h } = ws;
      const taker = await h.newUser();
      await h.fund(taker.account.address, { USDC: '100000' });
      const [a, b, c] = [await h.newMaker(), await h.newMaker(), await h.newMaker()];
      const sockets = new Map<string, Awaited<ReturnType<typeof ws.session>>>();
      for (const [name, maker] of [['a', a], ['b', b], ['c', c]] as const) {
        const socket = await ws.session(maker.client);
        await subscribe(socket, { topic: 'openRfqs', instrumentId: 'ETH-USDC-SPOT' });
        await subscribe(socket, { topic: 'quoteStatus' });
        sockets.set(name, socket);
      }
      const takerSocket = await ws.session(taker.client);
      await subscribe(takerSocket, { topic: 'rfqStatus' });

      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '3', quoteLimit: '9100', fill: 'SWEEP', minFillQty: '2', windowMs: 60_000 });
      const open = await sockets.get('a')!.next((f) => f.kind === 'rfq' && f.id === rfqId);
      assert.deepEqual([open.fill, open.minFillQty, open.baseQty], ['SWEEP', '2', '3']);
      const quote = (amount: string, price: string, extra: Record<string, unknown> = {}) => ({
        rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount }, makerReceives: { token: 'USDC', amount: price }, ...extra,
      });
      const qa = (await a.client.submitQuote(quote('2', '5980'))).quoteId;
      const qb = (await b.client.submitQuote(quote('1.5', '4470'))).quoteId;
      const qc = (await c.client.submitQuote(quote('2', '6000', { allOrNone: false }))).quoteId;
      const submitted = await sockets.get('c')!.next((f) => f.kind === 'quoteStatus' && f.quoteId === qc);
      assert.equal(submitted.allOrNone, false);
      await taker.client.acceptSweep(rfqId, { sweep: true });

      const status = (name: string, quoteId: string, wanted: string) => sockets.get(name)!.next((f) => f.kind === 'quoteStatus' && f.quoteId === quoteId && f.status === wanted);
      const legC = await status('c', qc, 'SELECTED');
      assert.deepEqual([(legC.makerPays as Frame).amount, (legC.makerReceives as Frame).amount, legC.selectedQty], ['1.5', '4500', '1.5']);
      const legB = await status('b', qb, 'SELECTED');
      assert.equal('selectedQty' in legB, false, 'a whole quote is not cut');
      await status('a', qa, 'NOT_SELECTED');
      const quoted = await takerSocket.next((f) => f.kind === 'rfqStatus' && f.id === rfqId && f.status === 'QUOTED');
      assert.deepEqual((quoted.fills as Frame[]).map((f) => [f.quoteId, f.baseQty, f.quoteQty, f.status]), [[qb, '1.5', '4470', 'SELECTED'], [qc, '1.5', '4500', 'SELECTED']]);
      // Each maker's stream names its own quotes only.
      for (const [name, own] of [['a', qa], ['b', qb], ['c', qc]] as const) {
        const seen = sockets.get(name)!.received.filter((f) => f.kind === 'quoteStatus').map((f) => f.quoteId);
        assert.deepEqual([...new Set(seen)], [own], name);
      }
    });

    it('tells the taker of each leg as it ends, and each maker of its own leg only', async () => {
      const { h } = ws;
      await h.admin.putSettings({ settlementHeadroomSecs: 1 });
      try {
        const taker = await h.newUser();
        await h.fund(taker.account.address, { USDC: '100000' });
        const [b, c] = [await h.newMaker(), await h.newMaker()];
        const makerSockets = [await ws.session(b.client), await ws.session(c.client)];
        for (const socket of makerSockets) await subscribe(socket, { topic: 'quoteStatus' });
        const takerSocket = await ws.session(taker.client);
        await subscribe(takerSocket, { topic: 'rfqStatus' });
        const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '3', quoteLimit: '9100', fill: 'SWEEP', windowMs: 3000 });
        const quote = (amount: string, price: string) => ({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount }, makerReceives: { token: 'USDC', amount: price } });
        const qb = (await b.client.submitQuote(quote('1', '2980'))).quoteId;
        const qc = (await c.client.submitQuote(quote('2', '6000'))).quoteId;
        await taker.client.acceptSweep(rfqId, { sweep: true });
        // No settlement adapter runs here: at the deadline each leg fails, then the RFQ.
        for (const [socket, own] of [[makerSockets[0]!, qb], [makerSockets[1]!, qc]] as const) {
          await socket.next((f) => f.kind === 'quoteStatus' && f.quoteId === own && f.status === 'FAILED', 15_000);
          assert.deepEqual([...new Set(socket.received.filter((f) => f.kind === 'quoteStatus').map((f) => f.quoteId))], [own]);
        }
        const ended = await takerSocket.next((f) => f.kind === 'rfqStatus' && f.id === rfqId && f.status === 'FAILED', 15_000);
        assert.deepEqual((ended.fills as Frame[]).map((f) => f.status), ['FAILED', 'FAILED']);
        const legFrames = takerSocket.received.filter((f) => f.kind === 'rfqStatus' && f.id === rfqId && f.status === 'QUOTED');
        // The selection's, then one a leg, each with the fills as they stood.
        assert.deepEqual(legFrames.map((f) => (f.fills as Frame[]).map((x) => x.status).sort()), [['SELECTED', 'SELECTED'], ['FAILED', 'SELECTED'], ['FAILED', 'FAILED']]);
      } finally {
        await h.admin.putSettings({ settlementHeadroomSecs: 60 });
      }
    });
  });
}
