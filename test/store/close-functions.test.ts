/**
 * The auction close's lock call (src/store/close-functions.ts): of the RFQs asked, it takes the
 * due PENDING ones no other closer holds and none being accepted as a perp, in id order, with
 * their quotes in id order and the protections of the autoAccept RFQs' open quotes' makers
 * (selections in the window counted), all exactly as stored.
 *
 * Its one write: a batch relocks one taker's
 * funds to the winner's cost and releases another's, writes the RFQs and quotes, and answers the
 * ended locks, the rows and the balances exactly as stored; a replacement larger than the lock it
 * replaces, or a row that moved from its `from` status, writes nothing at all.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { HUGE, insertQuotedRfq, openSpotMarket } from './spot-market.ts';
import { inTransaction } from '../../src/store/outbox.ts';
import { lockClose, writeClose } from '../../src/store/close-functions.ts';

for (const backend of backends()) {
  describe(`close lock and write [${backend}]`, () => {
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

    it('locks the due auctions asked, their quotes and the autoAccept makers\' protections', async () => {
      const now = 1_700_000_600_000;
      const auto = await lockedRfq(1n); // autoAccept, ended at 2
      const takerDriven = await insertQuotedRfq(store, taker, [maker]); // ends at `now`
      const notDue = await insertQuotedRfq(store, taker, [maker]);
      await store.db.updateTable('rfqs').set({ auction_ends_at: now + 1 }).where('id', '=', notDue.rfqId).execute();
      const beingAccepted = await lockedRfq(1n);
      await store.db.insertInto('perp_executions').values({
        id: randomUUID(), rfq_id: beingAccepted.rfqId, quote_id: beingAccepted.quoteId, account_id: taker, quote_version: 1, taker_order: '{}', signer: null, nonce: null,
        cloid: null, phase: 'checking', state: JSON.stringify({}), taker_sent_at: null, taker_reply_at: null, failure_code: null, lease_owner: null, next_at: 1, created_at: 1, updated_at: 1,
      }).execute();
      await store.db.insertInto('maker_protections').values({ maker_account_id: maker.makerAccount, instrument_id: 'ETH-USDC-SPOT', window_ms: 1000, max_selected_quotes: 5, max_selected_notional: HUGE, triggered_at: null, trigger_reason: null, updated_at: 1 }).execute();
      await store.db.insertInto('maker_protection_selections').values([
        { quote_id: `q_${randomUUID()}`, maker_account_id: maker.makerAccount, instrument_id: 'ETH-USDC-SPOT', notional: HUGE, selected_at: now - 500 },
        { quote_id: `q_${randomUUID()}`, maker_account_id: maker.makerAccount, instrument_id: 'ETH-USDC-SPOT', notional: 1n, selected_at: now - 1000 }, // out of the window
      ]).execute();

      const asked = [notDue.rfqId, beingAccepted.rfqId, takerDriven.rfqId, auto.rfqId, `rfq_${randomUUID()}`];
      const locked = await inTransaction(store.db, (tx) => lockClose(tx, asked, now));
      const due = [auto.rfqId, takerDriven.rfqId].sort();
      assert.deepEqual(locked.rfqs, await store.db.selectFrom('rfqs').selectAll().where('id', 'in', due).orderBy('id').execute());
      assert.deepEqual(locked.quotes, await store.db.selectFrom('quotes').selectAll().where('rfq_id', 'in', due).orderBy('id').execute());
      assert.deepEqual(locked.protections, [{
        maker_account_id: maker.makerAccount, instrument_id: 'ETH-USDC-SPOT', window_ms: 1000, max_selected_quotes: 5, max_selected_notional: HUGE, triggered_at: null,
        selected_count: 1, selected_notional: HUGE,
      }]);

      // Only a taker-driven RFQ among those taken: no protection is read.
      const alone = await inTransaction(store.db, (tx) => lockClose(tx, [takerDriven.rfqId], now));
      assert.deepEqual([alone.rfqs.map((r) => r.id), alone.protections], [[takerDriven.rfqId], []]);
      await store.db.deleteFrom('maker_protection_selections').where('maker_account_id', '=', maker.makerAccount).execute();
      await store.db.deleteFrom('maker_protections').where('maker_account_id', '=', maker.makerAccount).execute();
      await store.db.updateTable('rfqs').set({ status: 'CANCELLED' }).where('id', 'in', [takerDriven.rfqId, notDue.rfqId, auto.rfqId, beingAccepted.rfqId]).execute();
    });

    if (backend === 'postgres') {
      it('skips an auction another closer holds', async () => {
        const held = await lockedRfq(1n);
        const free = await lockedRfq(1n);
        let release!: () => void;
        const holding = new Promise<void>((resolve) => (release = resolve));
        let taken!: () => void;
        const isTaken = new Promise<void>((resolve) => (taken = resolve));
        const other = inTransaction(store.db, async (tx) => {
          await lockClose(tx, [held.rfqId], 10);
          taken();
          await holding;
        });
        await isTaken;
        try {
          const locked = await inTransaction(store.db, (tx) => lockClose(tx, [held.rfqId, free.rfqId], 10));
          assert.deepEqual(locked.rfqs.map((r) => r.id), [free.rfqId]);
        } finally {
          release();
          await other;
        }
        await store.db.updateTable('rfqs').set({ status: 'CANCELLED' }).where('id', 'in', [held.rfqId, free.rfqId]).execute();
      });
    }
  });
}
