/**
 * The business metrics on `/metrics` (src/runtime/business-metrics.ts) counted from committed
 * rows: new quotes (not re-quotes) with each maker's response time, selections, RFQs by final
 * status, the outbox lag, and bounded labels. Fills, settlement latency and maker failures on a
 * devnet are covered by test/chain/settlement/late-relay.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../helpers/backends.ts';
import { useWsHarness } from '../helpers/ws-harness.ts';
import { INSTRUMENT, fundedTaker, quotedRfq } from '../helpers/protection.ts';
import { metricReaches, metricSamples } from '../helpers/metrics.ts';
import { failureReasonLabel } from '../../src/runtime/business-metrics.ts';

const on = (labels: string) => `{instrument="${INSTRUMENT}"${labels}}`;

for (const backend of backends()) {
  describe(`business metrics [${backend}]`, () => {
    const ws = useWsHarness(backend);

    it('counts quotes once per maker and RFQ with response times, selections and final statuses', async () => {
      const url = ws.h.url;
      const [a, b] = [await ws.h.newMaker(['ETH-USDC']), await ws.h.newMaker(['ETH-USDC'])];
      const taker = await fundedTaker(ws.h);
      const before = await metricSamples(url);
      const at = (sample: string) => before.get(sample) ?? 0;

      const won = await quotedRfq(taker, a.client, '3000');
      await a.client.submitQuote({ rfqId: won.rfqId, instrumentId: INSTRUMENT, side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '2990' } }); // a re-quote
      await b.client.submitQuote({ rfqId: won.rfqId, instrumentId: INSTRUMENT, side: 'BUY', makerPays: { token: 'ETH', amount: '1' }, makerReceives: { token: 'USDC', amount: '3030' } });
      await taker.accept(won.rfqId, { quoteId: won.quoteId });
      const cancelled = await taker.createRfq({ instrumentId: INSTRUMENT, side: 'BUY', baseQty: '1', quoteLimit: '5000', autoAccept: false, windowMs: 60_000 });
      await taker.cancelRfq(cancelled.rfqId);

      assert.equal(await metricReaches(url, `rfq_quotes_total${on('')}`, at(`rfq_quotes_total${on('')}`) + 2), at(`rfq_quotes_total${on('')}`) + 2);
      assert.equal(await metricReaches(url, `rfq_selections_total${on('')}`, at(`rfq_selections_total${on('')}`) + 1), at(`rfq_selections_total${on('')}`) + 1);
      const final = `rfq_rfqs_final_total${on(',status="CANCELLED"')}`;
      assert.equal(await metricReaches(url, final, at(final) + 1), at(final) + 1);
      const after = await metricSamples(url);
      assert.equal(after.get('rfq_maker_response_seconds_count'), at('rfq_maker_response_seconds_count') + 2);
      assert.ok((after.get('rfq_maker_response_seconds_sum') ?? -1) >= at('rfq_maker_response_seconds_sum'));
      assert.equal(after.get(`rfq_rfqs_final_total${on(',status="SETTLED"')}`), before.get(`rfq_rfqs_final_total${on(',status="SETTLED"')}`), 'nothing settled without a chain');
      assert.ok((after.get('rfq_outbox_lag_rows') ?? -1) >= 0, 'the dispatcher lag is exported');
      assert.ok((after.get('rfq_outbox_lag_seconds') ?? -1) >= 0);
    });

    it('labels failures by their reason, bounded', () => {
      assert.deepEqual(['notSettled', 'notDelivered', 'lateRelay', 'perpMakerOrder: BadAloPx', 'a maker wrote this'].map(failureReasonLabel), ['notSettled', 'notDelivered', 'lateRelay', 'perpMakerOrder', 'other']);
    });
  });
}
