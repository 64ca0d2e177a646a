/**
 * The accept's two database calls (src/store/accept-functions.ts): rows come back exactly as the
 * driver reads them from the table (amounts beyond 2^53 included: the JSON answer must not lose
 * a digit), a failed replay claim locks and returns nothing, and a write whose funds lock is not
 * covered writes nothing at all.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { HUGE, insertQuotedRfq, openSpotMarket, seedTakerKeyAndFunds } from './spot-market.ts';
import { inTransaction } from '../../src/store/outbox.ts';
import { lockForAccept, writeAcceptSelection } from '../../src/store/accept-functions.ts';

for (const backend of backends()) {
  describe(`accept functions [${backend}]`, () => {
    let market: Awaited<ReturnType<typeof openSpotMarket>>;
    let store: Store;
    let taker: string;
    let maker: { makerId: string; makerAccount: string };
    const accessKey = `ak_${randomUUID()}`;
    before(async () => {
      market = await openSpotMarket(backend);
      store = market.store;
      ({ taker, ...maker } = market.market);
      await seedTakerKeyAndFunds(store, taker, accessKey);
    });
    after(() => market.close());

    async function rfqWithQuote(): Promise<{ rfqId: string; quoteId: string }> {
      const { rfqId, quoteIds } = await insertQuotedRfq(store, taker, [maker]);
      return { rfqId, quoteId: quoteIds[0]! };
    }

    it('returns the locked rows exactly as the driver reads them', async () => {
      const { rfqId, quoteId } = await rfqWithQuote();
      const locked = await inTransaction(store.db, (tx) => lockForAccept(tx, { claim: { accessKey, signedAt: 1 }, rfqId, accountId: taker, quoteId, now: 1_700_000_000_003 }));
      const rfq = await store.db.selectFrom('rfqs').selectAll().where('id', '=', rfqId).executeTakeFirstOrThrow();
      const quotes = await store.db.selectFrom('quotes').selectAll().where('rfq_id', '=', rfqId).execute();
      assert.equal(locked.claim, 'claimed');
      assert.deepEqual(locked.rfq, rfq);
      assert.deepEqual(locked.quotes, quotes);
      assert.equal(locked.rfq!.base_qty, HUGE);
      assert.deepEqual(locked.protections, []);
      assert.deepEqual(locked.barred, []);
    });

    it("names the accepted quote's maker barred while it is suspended (at the call's instant) or inactive", async () => {
      const barredAt = async (now: number) => {
        const { rfqId, quoteId } = await rfqWithQuote();
        return (await inTransaction(store.db, (tx) => lockForAccept(tx, { claim: null, rfqId, accountId: taker, quoteId, now }))).barred;
      };
      const makers = store.db.updateTable('makers').where('maker_id', '=', maker.makerId);
      try {
        await makers.set({ suspended_until: 1_700_000_000_100 }).execute();
        assert.deepEqual(await barredAt(1_700_000_000_099), [maker.makerAccount]);
        assert.deepEqual(await barredAt(1_700_000_000_100), [], 'a suspension ends at suspended_until');
        await makers.set({ suspended_until: null, active: false }).execute();
        assert.deepEqual(await barredAt(1_700_000_000_100), [maker.makerAccount]);
      } finally {
        await makers.set({ suspended_until: null, active: true }).execute();
      }
    });

    it('a replayed claim locks and returns nothing; another account sees no RFQ', async () => {
      const { rfqId, quoteId } = await rfqWithQuote();
      await inTransaction(store.db, (tx) => lockForAccept(tx, { claim: { accessKey, signedAt: 2 }, rfqId, accountId: taker, quoteId, now: 1 }));
      const replayed = await inTransaction(store.db, (tx) => lockForAccept(tx, { claim: { accessKey, signedAt: 2 }, rfqId, accountId: taker, quoteId, now: 1 }));
      assert.deepEqual(replayed, { claim: 'reused', rfq: null, quotes: [], protections: [], barred: [] });
      const stranger = await inTransaction(store.db, (tx) => lockForAccept(tx, { claim: null, rfqId, accountId: randomUUID(), quoteId, now: 1 }));
      assert.deepEqual(stranger, { claim: null, rfq: null, quotes: [], protections: [], barred: [] });
    });

    it('writes the selection and answers the rows and balances as stored; an uncovered lock writes nothing', async () => {
      const { rfqId, quoteId } = await rfqWithQuote();
      const write = (amount: bigint) => ({
        now: 1_700_000_000_010,
        lock: { lockId: randomUUID(), accountId: taker, token: 'USDC', rail: 'EVM' as const, amount, ownerKind: 'rfq' as const, ownerId: rfqId, at: 1_700_000_000_010 },
        rfq: { id: rfqId, from: 'PENDING', to: 'QUOTED', selectedQuoteId: quoteId },
        quotes: [{ id: quoteId, from: 'SUBMITTED' as const, to: 'SELECTED' as const, settlementDeadlineSecs: 1_700_003_600, fields: { window_starts_at: 1_700_000_000_010 } }],
      });
      const refused = await inTransaction(store.db, (tx) => writeAcceptSelection(tx, write(HUGE + 1n)));
      assert.equal(refused, null);
      assert.equal((await store.db.selectFrom('rfqs').select('status').where('id', '=', rfqId).executeTakeFirstOrThrow()).status, 'PENDING');
      assert.equal((await store.db.selectFrom('locks').select('lock_id').where('owner_id', '=', rfqId).execute()).length, 0);

      const written = await inTransaction(store.db, (tx) => writeAcceptSelection(tx, write(HUGE - 1n)));
      const rfq = await store.db.selectFrom('rfqs').selectAll().where('id', '=', rfqId).executeTakeFirstOrThrow();
      const quotes = await store.db.selectFrom('quotes').selectAll().where('rfq_id', '=', rfqId).execute();
      const balances = await store.db.selectFrom('balances').selectAll().where('account_id', '=', taker).execute();
      assert.deepEqual(written, { rfq, quotes, balances });
      assert.deepEqual([rfq.status, rfq.selected_quote_id, rfq.quoted_at, quotes[0]!.status, quotes[0]!.window_starts_at], ['QUOTED', quoteId, 1_700_000_000_010, 'SELECTED', 1_700_000_000_010]);
      assert.deepEqual([balances[0]!.available, balances[0]!.locked], [1n, HUGE + 4n]);
      // Put the balance back for the other tests.
      await store.db.updateTable('balances').set({ available: HUGE, locked: 5n }).where('account_id', '=', taker).execute();
    });
  });
}
