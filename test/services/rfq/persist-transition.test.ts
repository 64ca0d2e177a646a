/**
 * The frames each spot RFQ operation commits, read from the outbox in row order: which frame, on
 * which topic, to whom, in what order (spec, "Which operation produces which event"). They come
 * from the machines' decisions (src/domain/rfq/*-state.ts) through the persist step
 * (src/services/rfq/persist-transition.ts); no use case appends a frame itself. Settlement's
 * frames are covered by the chain tests.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { backends } from '../../helpers/backends.ts';
import { startHarness, type Harness } from '../../helpers/harness.ts';
import type { RfqClient } from '../../../src/client/rfq-client.ts';
import { waitFor } from '../../helpers/eventually.ts';

for (const backend of backends()) {
  describe(`frames of each RFQ transition, in outbox order [${backend}]`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(backend);
    });
    after(async () => h.close());

    /** Who is who, by account id; broadcast frames have none. */
    type Cast = Record<string, RfqClient>;

    async function lastOutboxId(): Promise<number> {
      const row = await h.node.store.db.selectFrom('outbox').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
      return Number(row?.id ?? 0);
    }

    /** Frames committed after `since`: "role topic kind status" (price ticks left out). */
    async function framesSince(since: number, cast: Cast): Promise<string[]> {
      const names = new Map(Object.entries(cast).map(([name, client]) => [client.login!.userId, name]));
      const rows = await h.node.store.db.selectFrom('outbox').select(['id', 'account_id', 'topic', 'frame']).where('id', '>', since).orderBy('id').execute();
      return rows
        .filter((r) => r.topic !== 'prices')
        .map((r) => {
          const frame = r.frame as { kind: string; status?: string };
          const who = r.account_id === null ? 'all' : (names.get(r.account_id) ?? 'someone else');
          return [who, r.topic, frame.kind, frame.status].filter(Boolean).join(' ');
        });
    }

    async function cast() {
      const { client: taker, account } = await h.newUser();
      await h.fund(account.address, { USDC: '100000' });
      const m1 = (await h.newMaker()).client;
      const m2 = (await h.newMaker()).client;
      return { taker, m1, m2 };
    }

    const buy = (rfqId: string, price: string) => ({ rfqId, instrumentId: 'ETH-USDC-SPOT', side: 'BUY' as const, makerPays: { token: 'ETH', amount: '1.5' }, makerReceives: { token: 'USDC', amount: price } });

    it('submission (autoAccept: the locked balances first), maker cancel, taker cancel (quotes expire first, then the RFQ and the released lock)', async () => {
      const { taker, m1, m2 } = await cast();
      let since = await lastOutboxId();
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', autoAccept: true, windowMs: 60_000 });
      assert.deepEqual(await framesSince(since, { taker, m1, m2 }), ['taker balances balanceSnapshot', 'taker rfqStatus rfqStatus PENDING', 'all openRfqs rfq']);

      const q1 = await m1.submitQuote(buy(rfqId, '4000'));
      await m2.submitQuote(buy(rfqId, '4100'));
      since = await lastOutboxId();
      await m1.cancelQuote(q1.quoteId);
      assert.deepEqual(await framesSince(since, { taker, m1, m2 }), ['m1 quoteStatus quoteStatus CANCELLED', 'taker quotes quoteUpdate CANCELLED']);

      since = await lastOutboxId();
      await taker.cancelRfq(rfqId);
      assert.deepEqual(await framesSince(since, { taker, m1, m2 }), ['m2 quoteStatus quoteStatus EXPIRED', 'taker rfqStatus rfqStatus CANCELLED', 'taker balances balanceSnapshot']);
    });

    it('taker cancel of a taker-driven RFQ (no lock): no balances', async () => {
      const { taker, m1, m2 } = await cast();
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 60_000 });
      await m1.submitQuote(buy(rfqId, '4000'));
      const since = await lastOutboxId();
      await taker.cancelRfq(rfqId);
      assert.deepEqual(await framesSince(since, { taker, m1, m2 }), ['m1 quoteStatus quoteStatus EXPIRED', 'taker rfqStatus rfqStatus CANCELLED']);
    });

    it('accept: the RFQ and the taker\'s new lock, then the winner and each loser', async () => {
      const { taker, m1, m2 } = await cast();
      const { rfqId } = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', windowMs: 60_000 });
      const q1 = await m1.submitQuote(buy(rfqId, '4000'));
      await m2.submitQuote(buy(rfqId, '4100'));
      const since = await lastOutboxId();
      await taker.accept(rfqId, { quoteId: q1.quoteId });
      assert.deepEqual(await framesSince(since, { taker, m1, m2 }), [
        'taker rfqStatus rfqStatus QUOTED',
        'taker balances balanceSnapshot',
        'm1 quoteStatus quoteStatus SELECTED',
        'm2 quoteStatus quoteStatus NOT_SELECTED',
      ]);
    });

    it('auction close, autoAccept: the RFQ and the re-lock, then every quote (in quote id order); with no conforming quote FAILED and released', async () => {
      const { taker, m1, m2 } = await cast();
      const selected = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '5000', autoAccept: true, windowMs: 3000 });
      const quotes = [await m1.submitQuote(buy(selected.rfqId, '4000')), await m2.submitQuote(buy(selected.rfqId, '4100'))];
      const since = await lastOutboxId();
      await waitFor(async () => (await taker.getRfq(selected.rfqId)).status !== 'PENDING', 'the RFQ closes', { timeoutMs: 15_000, pollMs: 25 });
      const byId = [...quotes].sort((a, b) => (a.quoteId < b.quoteId ? -1 : 1));
      assert.deepEqual(await framesSince(since, { taker, m1, m2 }), [
        'taker rfqStatus rfqStatus QUOTED',
        'taker balances balanceSnapshot',
        ...byId.map((q) => `${q === quotes[0] ? 'm1' : 'm2'} quoteStatus quoteStatus ${q === quotes[0] ? 'SELECTED' : 'NOT_SELECTED'}`),
      ]);

      const failed = await taker.createRfq({ instrumentId: 'ETH-USDC-SPOT', side: 'BUY', baseQty: '1.5', quoteLimit: '900', autoAccept: true, windowMs: 3000 });
      await m1.submitQuote(buy(failed.rfqId, '950'));
      const before = await lastOutboxId();
      await waitFor(async () => (await taker.getRfq(failed.rfqId)).status !== 'PENDING', 'the RFQ closes', { timeoutMs: 15_000, pollMs: 25 });
      assert.deepEqual(await framesSince(before, { taker, m1, m2 }), ['taker rfqStatus rfqStatus FAILED', 'taker balances balanceSnapshot', 'm1 quoteStatus quoteStatus EXPIRED']);
    });
  });
}
