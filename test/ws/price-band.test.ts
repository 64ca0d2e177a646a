/**
 * The price band on a devnet, on each backend: before an instrument's first trade ladders are not
 * banded; after a permit2 trade settles at 2866.67 USDC per ETH, every ladder level must lie within
 * `ladderBandBps` of it (an absurd bid is refused with the reference and the bounds, the socket
 * stays open, the book keeps its last prices), and a band of 0 turns the check off.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../helpers/backends.ts';
import { useDevnetHarness } from '../helpers/devnet-harness.ts';
import { chainMaker, fundedTaker, relay, rfqReaches, winningQuote } from '../helpers/settlement.ts';
import { INGEST_PATH, openSession, type Frame, type TestSocket } from './test-socket.ts';
import { elapse } from '../helpers/eventually.ts';

const ETH = 'ETH-USDC-SPOT';

for (const backend of backends()) {
  describe(`the price band [${backend}]`, () => {
    const devnet = useDevnetHarness(backend, { ladderBandBps: 1000 });

    const ladder = (bids: unknown, asks: unknown) => ({ kind: 'ladder', instrumentId: ETH, bids, asks, ts: Date.now() });
    /** Sends a ladder and answers the error frame it drew, or null when none came within 500 ms. */
    async function sent(socket: TestSocket, frame: Frame): Promise<Frame | null> {
      socket.send(frame);
      try {
        return await socket.next((f) => f.kind === 'error', 500);
      } catch {
        return null;
      }
    }

    it('bands ladders around the last trade once there is one; 0 turns it off', async () => {
      const { h, chain, sockets } = devnet;
      const maker = await chainMaker(h, chain);
      const ingest = await openSession(h.url, maker.client, sockets, INGEST_PATH);
      const absurd = ladder([['1' + '0'.repeat(40), '1']], []);
      assert.equal(await sent(ingest, absurd), null, 'no trade yet: no reference, no band');

      // One trade: 1.5 ETH for 4300 USDC, 2866.666... USDC per ETH.
      const taker = await fundedTaker(h, chain, { USDC: '5000' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: ETH, side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 1000 });
      const { quoteId } = await maker.client.submitQuote({ rfqId, instrumentId: ETH, side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4300' } });
      await taker.client.accept(rfqId, { quoteId });
      await relay(chain, maker, await winningQuote(maker, quoteId));
      await rfqReaches(taker.client, rfqId, 'SETTLED');
      await elapse(5_100, 'past the 5 s the band\'s reference is cached per node');

      const refused = await sent(ingest, absurd);
      assert.equal(refused?.code, 'INVALID_REQUEST', JSON.stringify(refused));
      const details = refused!.details as { errors: Array<{ field: string; reason: string }>; reference: string; bandBps: number; min: string; max: string };
      assert.deepEqual(details.errors.map((e) => [e.field, e.reason]), [['bids[0][0]', 'outsideBand']]);
      assert.deepEqual([details.reference, details.bandBps, details.min, details.max], ['2866.666666666666666666', 1000, '2580', '3153.333333333333333332']);
      assert.equal(await sent(ingest, ladder([['2600', '1']], [['3150', '1']])), null, 'inside the band');
      assert.equal((await sent(ingest, ladder([['2600', '1']], [['3153.34', '1']])))?.code, 'INVALID_REQUEST', 'one level past it');
      assert.equal(ingest.closeCode, null, 'the socket stays open');

      await h.admin.putSettings({ ladderBandBps: 0 });
      assert.equal(await sent(ingest, absurd), null, 'unbanded');
    });
  });
}
