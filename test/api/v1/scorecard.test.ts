/**
 * A maker's scorecard (DESIGN.md section 15) on each backend: what it saw, quoted, won and lost by,
 * its first-quote times, the same answer for the operator, and the window's bounds. Fades and late
 * relays, with the market's move, are covered on a devnet (test/chain/settlement/late-relay.test.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { useWsHarness } from '../../helpers/ws-harness.ts';
import { rejects } from '../../helpers/rejects.ts';
import { INSTRUMENT, fundedTaker, quotedRfq } from '../../helpers/protection.ts';

for (const backend of backends()) {
  describe(`maker scorecard [${backend}]`, () => {
    const ws = useWsHarness(backend);

    it('counts RFQs seen and quoted, wins, the distance to the winner and first-quote times; the operator reads the same', async () => {
      const a = await ws.h.newMaker(['ETH-USDC']);
      const b = await ws.h.newMaker(['ETH-USDC']);
      const taker = await fundedTaker(ws.h);
      const empty = await a.client.scorecard();
      assert.deepEqual(empty, { windowSecs: 86_400, rfqsSeen: 0, rfqsQuoted: 0, firstQuoteMs: { p50: null, p99: null }, wins: 0, lostByBps: { median: null }, settled: 0, failures: 0, fades: 0, lateRelays: 0, moves: [] });

      // RFQ 1: a quotes 3000, b 3030 (100 bp worse for the taker); the taker takes a's.
      const won = await quotedRfq(taker, a.client, '3000');
      const lost = await b.client.submitQuote({ rfqId: won.rfqId, instrumentId: INSTRUMENT, side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3030' } });
      await taker.accept(won.rfqId, { quoteId: won.quoteId });
      // RFQ 2: only b quotes, nobody accepts. RFQ 3: nobody quotes.
      await quotedRfq(taker, b.client, '3010');
      await taker.createRfq({ instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: false, windowMs: 60_000 });

      const ofA = await a.client.scorecard();
      assert.deepEqual([ofA.rfqsSeen, ofA.rfqsQuoted, ofA.wins, ofA.lostByBps.median, ofA.settled, ofA.failures], [3, 1, 1, null, 0, 0]);
      assert.ok(ofA.firstQuoteMs.p50 !== null && ofA.firstQuoteMs.p50 >= 0 && ofA.firstQuoteMs.p99! >= ofA.firstQuoteMs.p50);
      const ofB = await b.client.scorecard(3_600);
      assert.deepEqual([ofB.windowSecs, ofB.rfqsSeen, ofB.rfqsQuoted, ofB.wins, ofB.lostByBps.median], [3_600, 3, 2, 0, 100]);
      assert.equal((await b.client.makerQuotes({ limit: 10 })).items.find((q) => q.quoteId === lost.quoteId)?.status, 'NOT_SELECTED');

      assert.deepEqual(await ws.h.admin.call('GET', `/makers/${b.account.address}/scorecard?windowSecs=3600`), ofB);
      assert.deepEqual(await ws.h.admin.call('GET', `/makers/${a.account.address}/scorecard`), ofA);
    });

    it('refuses a window outside 60 s to 30 days, a taker, and an unknown maker', async () => {
      const maker = await ws.h.newMaker(['ETH-USDC']);
      await rejects(maker.client.scorecard(59), 400, 'INVALID_REQUEST');
      await rejects(maker.client.scorecard(2_592_001), 400, 'INVALID_REQUEST');
      assert.equal((await maker.client.scorecard(2_592_000)).windowSecs, 2_592_000);
      const taker = await ws.h.newUser();
      await rejects(taker.client.scorecard(), 403, 'MAKER_SCOPE_REQUIRED');
      await rejects(ws.h.admin.call('GET', '/makers/0x00000000000000000000000000000000000000aa/scorecard'), 404, 'NOT_FOUND');
    });
  });
}
