/**
 * A batch of accepts' two database calls (src/store/accept-batch-functions.ts): the lock answers
 * each item's claim and only the RFQs of items whose claim was won and whose taker owns them,
 * with every quote of those RFQs, rows exactly as the driver reads them (amounts beyond 2^53
 * included); the write locks funds in arrival order per taker, leaves out an item the balance no
 * longer covers and writes every other item's RFQ and quotes, and answers the balances after.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { HUGE, insertQuotedRfq, openSpotMarket, seedTakerKeyAndFunds } from './spot-market.ts';
import { inTransaction } from '../../src/store/outbox.ts';
import { batchClaimOutcome, lockAcceptBatch, writeAcceptBatch, type AcceptBatchWriteItem } from '../../src/store/accept-batch-functions.ts';

for (const backend of backends()) {
  describe(`accept batch functions [${backend}]`, () => {
    let market: Awaited<ReturnType<typeof openSpotMarket>>;
    let store: Store;
    let taker: string;
    let maker: { makerId: string; makerAccount: string };
    /** A second maker, for an RFQ's second quote (one quote per maker and RFQ). */
    const second = { makerId: randomUUID(), makerAccount: randomUUID() };
    const accessKey = `ak_${randomUUID()}`;
    before(async () => {
      market = await openSpotMarket(backend);
      store = market.store;
      ({ taker, ...maker } = market.market);
      await seedTakerKeyAndFunds(store, taker, accessKey);
      await store.db.insertInto('accounts').values({ id: second.makerAccount, address: '0x0000000000000000000000000000000000000003', created_at: 1 }).execute();
      await store.db.insertInto('makers').values({ maker_id: second.makerId, account_id: second.makerAccount, active: true, pairs: JSON.stringify(['ETH-USDC']), settlement_modes: JSON.stringify(['promised']), spender: null, adapter_signer: null, suspended_until: null, created_at: 1, updated_at: 1 }).execute();
    });
    after(() => market.close());

    const rfqWithQuotes = (n: number) => insertQuotedRfq(store, taker, [maker, second].slice(0, n));

    it('locks the RFQs of won claims and of their own takers only, with all their quotes, exactly as stored', async () => {
      const a = await rfqWithQuotes(2);
      const b = await rfqWithQuotes(1);
      const c = await rfqWithQuotes(1);
      const d = await rfqWithQuotes(1);
      // d's claim is taken first, so its item loses it.
      await inTransaction(store.db, (tx) => lockAcceptBatch(tx, [{ claim: { accessKey, signedAt: 40 }, rfqId: d.rfqId, accountId: taker, quoteId: d.quoteIds[0]! }], 1));
      const claims = [{ accessKey, signedAt: 41 }, null, null, { accessKey, signedAt: 40 }];
      const locked = await inTransaction(store.db, (tx) =>
        lockAcceptBatch(tx, [
          { claim: claims[0]!, rfqId: a.rfqId, accountId: taker, quoteId: a.quoteIds[1]! },
          { claim: null, rfqId: b.rfqId, accountId: taker, quoteId: b.quoteIds[0]! },
          { claim: null, rfqId: c.rfqId, accountId: randomUUID(), quoteId: c.quoteIds[0]! },
          { claim: claims[3]!, rfqId: d.rfqId, accountId: taker, quoteId: d.quoteIds[0]! },
        ], 1_700_000_000_003),
      );
      assert.deepEqual([batchClaimOutcome(locked, claims[0]!), batchClaimOutcome(locked, claims[3]!)], ['claimed', 'reused']);
      assert.deepEqual([...locked.rfqs.keys()].sort(), [a.rfqId, b.rfqId].sort());
      const rfqA = await store.db.selectFrom('rfqs').selectAll().where('id', '=', a.rfqId).executeTakeFirstOrThrow();
      assert.deepEqual(locked.rfqs.get(a.rfqId), rfqA);
      const quotes = await store.db.selectFrom('quotes').selectAll().where('rfq_id', 'in', [a.rfqId, b.rfqId]).orderBy('received_at').orderBy('id').execute();
      assert.deepEqual(
        [...locked.quotes].sort((x, y) => (x.id < y.id ? -1 : 1)),
        [...quotes].sort((x, y) => (x.id < y.id ? -1 : 1)),
      );
      assert.equal(locked.quotes.find((q) => q.id === a.quoteIds[0])!.maker_pays_amount, HUGE);
      assert.deepEqual(locked.protections, []);
    });

    it('writes every covered item, leaves out the one the balance no longer covers, and answers rows and balances as stored', async () => {
      const items = [await rfqWithQuotes(2), await rfqWithQuotes(1), await rfqWithQuotes(1)];
      const write = ({ rfqId, quoteIds }: { rfqId: string; quoteIds: string[] }, amount: bigint, at: number): AcceptBatchWriteItem => ({
        lock: { lockId: randomUUID(), accountId: taker, token: 'USDC', rail: 'EVM', amount, ownerKind: 'rfq', ownerId: rfqId, at },
        rfq: { id: rfqId, from: 'PENDING', to: 'QUOTED', selectedQuoteId: quoteIds[0]!, quotedAt: at },
        quotes: quoteIds.map((id, i) => (i === 0
          ? { id, from: 'SUBMITTED' as const, to: 'SELECTED' as const, settlementDeadlineSecs: 1_700_003_600, fields: { window_starts_at: at } }
          : { id, from: 'SUBMITTED' as const, to: 'NOT_SELECTED' as const, settlementDeadlineSecs: null })),
      });
      // The first takes all but 1 of the balance: the second (2) is not covered, the third (1) is.
      const written = await inTransaction(store.db, (tx) =>
        writeAcceptBatch(tx, [write(items[0]!, HUGE - 1n, 1_700_000_000_010), write(items[1]!, 2n, 1_700_000_000_011), write(items[2]!, 1n, 1_700_000_000_012)], 1_700_000_000_020),
      );
      assert.deepEqual([...written.locked].sort(), [0, 2]);
      const rfqs = await store.db.selectFrom('rfqs').selectAll().where('id', 'in', items.map((i) => i.rfqId)).execute();
      const byId = new Map(rfqs.map((r) => [r.id, r]));
      assert.deepEqual(items.map((i) => byId.get(i.rfqId)!.status), ['QUOTED', 'PENDING', 'QUOTED']);
      assert.deepEqual([byId.get(items[0]!.rfqId)!.quoted_at, byId.get(items[2]!.rfqId)!.quoted_at], [1_700_000_000_010, 1_700_000_000_012]);
      assert.deepEqual(written.rfqs, new Map([items[0]!, items[2]!].map((i) => [i.rfqId, byId.get(i.rfqId)!])));
      const quotes = await store.db.selectFrom('quotes').selectAll().where('rfq_id', 'in', items.map((i) => i.rfqId)).execute();
      const quoteStatus = new Map(quotes.map((q) => [q.id, q.status]));
      assert.deepEqual(items.flatMap((i) => i.quoteIds.map((id) => quoteStatus.get(id))), ['SELECTED', 'NOT_SELECTED', 'SUBMITTED', 'SELECTED']);
      assert.deepEqual([...written.quotes.keys()].sort(), [...items[0]!.quoteIds, ...items[2]!.quoteIds].sort());
      assert.deepEqual(written.quotes.get(items[0]!.quoteIds[0]!), quotes.find((q) => q.id === items[0]!.quoteIds[0]));
      const locks = await store.db.selectFrom('locks').select(['owner_id', 'amount']).where('owner_id', 'in', items.map((i) => i.rfqId)).execute();
      assert.deepEqual(new Map(locks.map((l) => [l.owner_id, l.amount])), new Map([[items[0]!.rfqId, HUGE - 1n], [items[2]!.rfqId, 1n]]));
      const balances = await store.db.selectFrom('balances').selectAll().where('account_id', '=', taker).execute();
      assert.deepEqual(written.balances, balances);
      assert.deepEqual([balances[0]!.available, balances[0]!.locked], [0n, HUGE + 5n]);
      await store.db.updateTable('balances').set({ available: HUGE, locked: 5n }).where('account_id', '=', taker).execute();
    });

    it('writes nothing when no item is covered', async () => {
      const item = await rfqWithQuotes(1);
      const written = await inTransaction(store.db, (tx) =>
        writeAcceptBatch(tx, [{
          lock: { lockId: randomUUID(), accountId: taker, token: 'USDC', rail: 'EVM', amount: HUGE + 1n, ownerKind: 'rfq', ownerId: item.rfqId, at: 5 },
          rfq: { id: item.rfqId, from: 'PENDING', to: 'QUOTED', selectedQuoteId: item.quoteIds[0]!, quotedAt: 5 },
          quotes: [{ id: item.quoteIds[0]!, from: 'SUBMITTED', to: 'SELECTED', settlementDeadlineSecs: 1_700_003_600 }],
        }], 6),
      );
      assert.deepEqual(written, { locked: new Set(), rfqs: new Map(), quotes: new Map(), balances: [] });
      assert.equal((await store.db.selectFrom('rfqs').select('status').where('id', '=', item.rfqId).executeTakeFirstOrThrow()).status, 'PENDING');
      assert.equal((await store.db.selectFrom('locks').select('lock_id').where('owner_id', '=', item.rfqId).execute()).length, 0);
    });
  });
}
