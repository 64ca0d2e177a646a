/**
 * The auction close's one write (src/store/close-functions.ts): a batch relocks one taker's
 * funds to the winner's cost and releases another's, writes the RFQs and quotes, and answers the
 * ended locks, the rows and the balances exactly as stored; a replacement larger than the lock it
 * replaces, or a row that moved from its `from` status, writes nothing at all.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { openSpotMarket } from './spot-market.ts';
import { inTransaction } from '../../src/store/outbox.ts';
import { writeClose } from '../../src/store/close-functions.ts';

const HUGE = 10n ** 24n + 7n;

for (const backend of backends()) {
  describe(`close write [${backend}]`, () => {
    let market: Awaited<ReturnType<typeof openSpotMarket>>;
    let store: Store;
    let taker: string;
    let maker: { makerId: string; makerAccount: string };
    before(async () => {
      market = await openSpotMarket(backend);
      store = market.store;
      ({ taker, ...maker } = market.market);
      await store.db.insertInto('balances').values({ account_id: taker, token: 'USDC', rail: 'EVM', available: 1n, locked: 0n }).execute();
    });
    after(() => market.close());

    /** An autoAccept RFQ holding a live lock of `locked`, with one open quote. */
    async function lockedRfq(locked: bigint): Promise<{ rfqId: string; quoteId: string }> {
      const rfqId = `rfq_${randomUUID()}`;
      const quoteId = `q_${randomUUID()}`;
      await store.db.insertInto('rfqs').values({
        id: rfqId, account_id: taker, instrument_id: 'ETH-USDC-SPOT', side: 'BUY', base_qty: HUGE, quote_limit: HUGE, taker_fee_tenth_bp: 25, auto_accept: true,
        status: 'PENDING', created_at: 1, auction_ends_at: 2, settlement_deadline_secs: 3, quoted_at: null, settled_at: null, executed_pay_amount: null,
        executed_recv_amount: null, taker_fee: null, tx_hash: null, failure_code: null, failure_reason: null, selected_quote_id: null, idempotency_key: null,
        request_fingerprint: 'f', updated_at: 1,
      }).execute();
      await store.db.insertInto('quotes').values({
        id: quoteId, rfq_id: rfqId, maker_id: maker.makerId, maker_account_id: maker.makerAccount, version: 1, status: 'SUBMITTED', maker_pays_token: 'ETH',
        maker_pays_amount: HUGE, maker_receives_token: 'USDC', maker_receives_amount: 3n, taker_fee: 0n, taker_total: 3n, received_at: 1, acceptable_for_ms: null,
        settlement_mode: 'promised', settlement_deadline_secs: null, permit_signature: null, spender: null, delivery_deadline_secs: null, window_starts_at: null,
        window_ends_at: null, xchange: null, settled_at: null, tx_hash: null, created_at: 1, updated_at: 1, quote_hash: null,
      }).execute();
      await store.db.insertInto('locks').values({ lock_id: randomUUID(), account_id: taker, token: 'USDC', rail: 'EVM', amount: locked, owner_kind: 'rfq', owner_id: rfqId, created_at: 1, released_at: null, release_reason: null }).execute();
      const row = await store.db.selectFrom('balances').selectAll().where('account_id', '=', taker).executeTakeFirstOrThrow();
      await store.db.updateTable('balances').set({ locked: row.locked + locked }).where('account_id', '=', taker).execute();
      return { rfqId, quoteId };
    }
    const none = { quoted_at: null, selected_quote_id: null, failure_code: null, failure_reason: null };

    it('relocks, releases and writes the batch, answering what it stored', async () => {
      const won = await lockedRfq(HUGE);
      const failed = await lockedRfq(5n);
      const keptLock = randomUUID();
      const written = await inTransaction(store.db, (tx) =>
        writeClose(tx, {
          now: 10,
          locks: [
            { ownerId: won.rfqId, replacement: { lockId: keptLock, amount: HUGE - 2n }, reason: 'selection' },
            { ownerId: failed.rfqId, replacement: null, reason: 'auctionFailed' },
          ],
          rfqs: [
            { id: won.rfqId, from: 'PENDING', to: 'QUOTED', fields: { ...none, quoted_at: 10, selected_quote_id: won.quoteId } },
            { id: failed.rfqId, from: 'PENDING', to: 'FAILED', fields: { ...none, failure_code: 'NO_CONFORMING_QUOTE', failure_reason: 'none' } },
          ],
          quotes: [
            { id: won.quoteId, from: 'SUBMITTED', to: 'SELECTED', settlementDeadlineSecs: 3, fields: { window_starts_at: 10 } },
            { id: failed.quoteId, from: 'SUBMITTED', to: 'EXPIRED', settlementDeadlineSecs: null },
          ],
        }),
      );
      const rfqs = await Promise.all([won.rfqId, failed.rfqId].map((id) => store.db.selectFrom('rfqs').selectAll().where('id', '=', id).executeTakeFirstOrThrow()));
      const quotes = await Promise.all([won.quoteId, failed.quoteId].map((id) => store.db.selectFrom('quotes').selectAll().where('id', '=', id).executeTakeFirstOrThrow()));
      const balances = await store.db.selectFrom('balances').selectAll().where('account_id', '=', taker).execute();
      assert.deepEqual(written.rfqs, rfqs);
      assert.deepEqual(written.quotes, quotes);
      assert.deepEqual(written.balances, balances);
      assert.deepEqual([...written.ended.keys()].sort(), [won.rfqId, failed.rfqId].sort());
      assert.equal(written.ended.get(won.rfqId)!.amount, HUGE);
      // Freed: 2 of the won lock and all 5 of the failed one.
      assert.deepEqual([balances[0]!.available, balances[0]!.locked], [1n + 2n + 5n, HUGE - 2n]);
      const live = await store.db.selectFrom('locks').select(['lock_id', 'amount']).where('owner_id', 'in', [won.rfqId, failed.rfqId]).where('released_at', 'is', null).execute();
      assert.deepEqual(live, [{ lock_id: keptLock, amount: HUGE - 2n }]);
      assert.deepEqual([rfqs[0]!.status, rfqs[1]!.status, quotes[0]!.status, quotes[1]!.status], ['QUOTED', 'FAILED', 'SELECTED', 'EXPIRED']);
    });

    it('a replacement larger than its lock, or a row no longer in its status, writes nothing', async () => {
      const a = await lockedRfq(4n);
      const before = await store.db.selectFrom('balances').selectAll().where('account_id', '=', taker).executeTakeFirstOrThrow();
      await assert.rejects(inTransaction(store.db, (tx) =>
        writeClose(tx, {
          now: 20,
          locks: [{ ownerId: a.rfqId, replacement: { lockId: randomUUID(), amount: 5n }, reason: 'selection' }],
          rfqs: [{ id: a.rfqId, from: 'PENDING', to: 'QUOTED', fields: { ...none, quoted_at: 20, selected_quote_id: a.quoteId } }],
          quotes: [],
        }),
      ), /exceeds the lock it replaces/);
      await assert.rejects(inTransaction(store.db, (tx) =>
        writeClose(tx, {
          now: 20,
          locks: [{ ownerId: a.rfqId, replacement: null, reason: 'auctionFailed' }],
          rfqs: [{ id: a.rfqId, from: 'QUOTED', to: 'FAILED', fields: none }],
          quotes: [],
        }),
      ), /wrote 0 of 1/);
      assert.deepEqual(await store.db.selectFrom('balances').selectAll().where('account_id', '=', taker).executeTakeFirstOrThrow(), before);
      assert.equal((await store.db.selectFrom('rfqs').select('status').where('id', '=', a.rfqId).executeTakeFirstOrThrow()).status, 'PENDING');
      assert.equal((await store.db.selectFrom('locks').select('lock_id').where('owner_id', '=', a.rfqId).where('released_at', 'is', null).execute()).length, 1);
    });
  });
}
