/**
 * Relay timing on a devnet (DESIGN.md section 15): a permit2 relay is timed from the selection; one
 * within `relayGraceSecs` records nothing, one past it still settles but is recorded against the
 * maker as `lateRelay` with its delay, and late relays reaching `makerFailureThreshold` suspend the
 * maker like failed settlements. The maker's scorecard lists each late relay with the market's move
 * over its delay, read from the marks of the consolidated mid, and `/metrics` counts the fills,
 * their settlement latency and the late relays. A relay held across a service outage is not the
 * maker's fault.
 */
import { afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import type { Harness } from '../../helpers/harness.ts';
import type { TestChain } from '../../helpers/chain.ts';
import { useDevnetHarness } from '../../helpers/devnet-harness.ts';
import { chainMaker, fundedTaker, relay, rfqReaches, winningQuote, type ChainMaker } from '../../helpers/settlement.ts';
import type { Scorecard } from '../../../src/client/types.ts';
import { metricReaches, metricSamples } from '../../helpers/metrics.ts';
import { INGEST_PATH, openSession } from '../../ws/test-socket.ts';
import { elapse } from '../../helpers/eventually.ts';

const GRACE_SECS = 1;

for (const backend of backends()) {
  describe(`relay timing on a devnet [${backend}]`, () => {
    const devnet = useDevnetHarness(backend, { relayGraceSecs: GRACE_SECS, makerFailureThreshold: 2, makerSuspensionBaseMs: 60_000 });
    let chain: TestChain;
    let h: Harness;
    const sockets = devnet.sockets;
    before(() => {
      ({ chain, h } = devnet);
    });
    afterEach(async () => {
      assert.deepEqual((await h.admin.invariants()).violations, []);
    });

    const failures = (maker: ChainMaker) =>
      h.node.store.db.selectFrom('maker_failures').select(['quote_id', 'reason', 'delay_ms']).where('maker_id', '=', maker.makerId).orderBy('created_at').execute();
    const suspendedUntil = async (maker: ChainMaker) =>
      ((await h.admin.listMakers()).makers.find((m) => m['makerId'] === maker.makerId) as { suspendedUntil: number | null }).suspendedUntil;

    /** One 1.5 ETH BUY won by `maker`, relayed `holdMs` after the maker saw it selected; `whileHeld` runs at the selection. */
    async function trade(maker: ChainMaker, holdMs: number, whileHeld: () => void | Promise<void> = () => {}) {
      const taker = await fundedTaker(h, chain, { USDC: '5000' });
      const { rfqId } = await taker.client.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', windowMs: 1000 });
      const { quoteId } = await maker.client.submitQuote({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY', makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: '4300' } });
      await taker.client.accept(rfqId, { quoteId });
      const q = await winningQuote(maker, quoteId);
      await whileHeld();
      await elapse(holdMs, 'the maker sitting on its option: the delay is the point of the test');
      await relay(chain, maker, q);
      await rfqReaches(taker.client, rfqId, 'SETTLED');
      return quoteId;
    }

    it('a prompt relay records nothing; late ones settle, are recorded with their delay, and suspend at the threshold', async () => {
      const maker = await chainMaker(h, chain);
      await trade(maker, 0);
      assert.deepEqual(await failures(maker), [], 'within the grace');

      const late = await trade(maker, GRACE_SECS * 1000 + 1500);
      const recorded = await failures(maker);
      assert.deepEqual(recorded.map((f) => [f.quote_id, f.reason]), [[late, 'lateRelay']]);
      assert.ok(Number(recorded[0]!.delay_ms) > GRACE_SECS * 1000, `delay ${String(recorded[0]!.delay_ms)} ms`);
      assert.equal(await suspendedUntil(maker), null, 'one of two');

      // The second late relay with the market moving up while it is held: mid 2850 at the
      // selection, 2950 at the relay, against a maker that sold ETH (-350.87 bp).
      const ingest = await openSession(h.url, maker.client, sockets, INGEST_PATH);
      const ladder = (bid: string, ask: string) => ({ kind: 'ladder', instrumentId: 'ETH-USDC-SPOT', bids: [[bid, '10']], asks: [[ask, '10']], ts: Date.now() });
      ingest.send(ladder('2800', '2900'));
      // The selection reads the mark of a second already over: the mid is marked within the
      // second after next (a mark row can exist before its second has passed, so no row tells).
      await elapse(2_500, 'the ladder\'s mid marked for a second wholly past');
      const moved = await trade(maker, GRACE_SECS * 1000 + 2500, () => ingest.send(ladder('2900', '3000')));
      assert.deepEqual((await failures(maker)).map((f) => f.reason), ['lateRelay', 'lateRelay']);
      const until = await suspendedUntil(maker);
      assert.ok(until !== null && until > Date.now(), 'two late relays suspend it');

      // Read by the operator: a suspended maker's credential is refused on maker routes.
      const card = (await h.admin.call('GET', `/makers/${maker.account.address}/scorecard`)) as Scorecard;
      assert.deepEqual([card.wins, card.settled, card.failures, card.fades, card.lateRelays], [3, 3, 0, 0, 2]);
      assert.deepEqual(card.moves.map((m) => [m.quoteId, m.kind, m.marketMoveBps]), [[moved, 'lateRelay', -350.87], [late, 'lateRelay', null]]);
      assert.ok(card.moves.every((m) => m.delayMs > GRACE_SECS * 1000), JSON.stringify(card.moves));

      // The business metrics count the same trades from the committed rows.
      assert.equal(await metricReaches(h.url, 'rfq_fills_total{instrument="ETH-USDC-SPOT",mode="permit2"}', 3), 3);
      const metrics = await metricSamples(h.url);
      assert.equal(metrics.get('rfq_rfqs_final_total{instrument="ETH-USDC-SPOT",status="SETTLED"}'), 3);
      assert.equal(metrics.get('rfq_settlement_seconds_count{mode="permit2"}'), 3);
      assert.equal(await metricReaches(h.url, 'rfq_maker_failures_total{reason="lateRelay"}', 2), 2);
    });

    it('a late relay across a service outage is not held against the maker', async () => {
      const maker = await chainMaker(h, chain);
      // As the first node to start after a gap records it (service-outages.ts), inside the hold.
      const outage = { started_at: 0, ended_at: 0 };
      await trade(maker, GRACE_SECS * 1000 + 1500, async () => {
        outage.started_at = Date.now();
        outage.ended_at = outage.started_at + 500;
        await h.node.store.db.insertInto('service_outages').values(outage).execute();
      });
      try {
        assert.deepEqual(await failures(maker), [], 'the service, not the maker, was missing');
      } finally {
        await h.node.store.db.deleteFrom('service_outages').where('started_at', '=', outage.started_at).execute();
      }
    });
  });
}
