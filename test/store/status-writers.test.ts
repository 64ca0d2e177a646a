/**
 * The status writers: a transition is written only from the status it was decided from (a row
 * that moved on is never written over, and a batch with one such row writes nothing), the
 * outcome's fields are written with it, and a field change keeps the status. The quotes' batch
 * writer sets a winner's settlement fields in the same statement, leaving absent ones as they are.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends, openMigratedStore } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { inTransaction } from '../../src/store/outbox.ts';
import { writeRfqStatus, writeRfqStatuses } from '../../src/store/rfq-status.ts';
import { writeQuoteStatuses } from '../../src/store/quote-status.ts';
import { transitionRfq } from '../../src/domain/rfq/index.ts';

for (const backend of backends()) {
  describe(`status writers [${backend}]`, () => {
    let store: Store;
    let close: () => Promise<void>;
    let accountId: string;
    before(async () => {
      ({ store, close } = await openMigratedStore(backend));
      accountId = randomUUID();
      await store.db.insertInto('accounts').values({ id: accountId, address: '0x0000000000000000000000000000000000000001', created_at: 1 }).execute();
      await store.db.insertInto('tokens').values([{ symbol: 'ETH', decimals: 18, address: null, updated_at: 1 }, { symbol: 'USDC', decimals: 6, address: null, updated_at: 1 }]).onConflict((oc) => oc.doNothing()).execute();
      await store.db
        .insertInto('instruments')
        .values({ instrument_id: 'ETH-USDC-SPOT', base: 'ETH', quote: 'USDC', type: 'SPOT', taker_fee_tenth_bp: 25, min_quote_notional: null, enabled: true, updated_at: 1 })
        .onConflict((oc) => oc.doNothing())
        .execute();
    });
    after(async () => {
      await close();
    });

    async function newRfq(): Promise<string> {
      const id = `rfq_${randomUUID()}`;
      await store.db
        .insertInto('rfqs')
        .values({
          id, account_id: accountId, instrument_id: 'ETH-USDC-SPOT', side: 'BUY', base_qty: 10n ** 18n, quote_limit: null, taker_fee_tenth_bp: 25, auto_accept: false,
          status: 'PENDING', created_at: 1, auction_ends_at: 2, settlement_deadline_secs: 3, quoted_at: null, settled_at: null, executed_pay_amount: null,
          executed_recv_amount: null, taker_fee: null, tx_hash: null, failure_code: null, failure_reason: null, selected_quote_id: null, idempotency_key: null,
          request_fingerprint: 'f', updated_at: 1,
        })
        .execute();
      return id;
    }
    const statusOf = async (id: string) => (await store.db.selectFrom('rfqs').select(['status', 'failure_reason', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow());

    it('writes the transition and its fields from the prior status', async () => {
      const id = await newRfq();
      const row = await inTransaction(store.db, (tx) => writeRfqStatus(tx, { id, from: 'PENDING', to: transitionRfq('PENDING', 'takerCancel'), fields: { failure_reason: 'cancelled by the taker' } }, 50));
      assert.deepEqual([row.status, row.failure_reason, row.updated_at], ['CANCELLED', 'cancelled by the taker', 50]);
      assert.deepEqual(await statusOf(id), { status: 'CANCELLED', failure_reason: 'cancelled by the taker', updated_at: 50 });
    });

    it('never writes over a row that is no longer in the prior status', async () => {
      const id = await newRfq();
      await inTransaction(store.db, (tx) => writeRfqStatus(tx, { id, from: 'PENDING', to: 'CANCELLED' }, 50));
      await assert.rejects(inTransaction(store.db, (tx) => writeRfqStatus(tx, { id, from: 'PENDING', to: 'QUOTED' }, 60)), /is no longer PENDING/);
      assert.equal((await statusOf(id)).status, 'CANCELLED');
    });

    it('a batch with one row that moved on writes nothing', async () => {
      const [a, b] = [await newRfq(), await newRfq()];
      await inTransaction(store.db, (tx) => writeRfqStatus(tx, { id: b, from: 'PENDING', to: 'CANCELLED' }, 50));
      const none = { quoted_at: null, selected_quote_id: null, failure_code: null, failure_reason: null };
      await assert.rejects(
        inTransaction(store.db, (tx) => writeRfqStatuses(tx, [{ id: a, from: 'PENDING', to: 'CANCELLED', fields: none }, { id: b, from: 'PENDING', to: 'CANCELLED', fields: none }], 70)),
        /wrote 1 of 2 rows/,
      );
      assert.deepEqual([(await statusOf(a)).status, (await statusOf(b)).updated_at], ['PENDING', 50]);
    });

    it('a field change guarded by the status keeps it', async () => {
      const id = await newRfq();
      const row = await inTransaction(store.db, (tx) => writeRfqStatus(tx, { id, from: 'PENDING', to: 'PENDING', fields: { failure_reason: 'note' } }, 80));
      assert.deepEqual([row.status, row.failure_reason], ['PENDING', 'note']);
    });

    it("a quote batch writes each winner's settlement fields with its status, and only the keys given", async () => {
      const rfqId = await newRfq();
      // One maker per quote of an RFQ: two maker accounts.
      const newMaker = async (n: number) => {
        const [makerId, makerAccount] = [randomUUID(), randomUUID()];
        await store.db.insertInto('accounts').values({ id: makerAccount, address: `0x${String(n).padStart(40, '0')}`, created_at: 1 }).execute();
        await store.db.insertInto('makers').values({ maker_id: makerId, account_id: makerAccount, active: true, pairs: JSON.stringify(['ETH-USDC']), settlement_modes: JSON.stringify(['promised']), spender: null, adapter_signer: null, suspended_until: null, created_at: 1, updated_at: 1 }).execute();
        return { makerId, makerAccount };
      };
      const quote = (id: string, { makerId, makerAccount }: { makerId: string; makerAccount: string }) => ({
        id, rfq_id: rfqId, maker_id: makerId, maker_account_id: makerAccount, version: 1, status: 'SUBMITTED' as const, maker_pays_token: 'ETH', maker_pays_amount: 10n ** 18n,
        maker_receives_token: 'USDC', maker_receives_amount: 3_000_000_000n, taker_fee: 0n, taker_total: 3_000_000_000n, received_at: 1, acceptable_for_ms: null,
        settlement_mode: 'promised', settlement_deadline_secs: null, permit_signature: 'kept', spender: null, delivery_deadline_secs: null, window_starts_at: null,
        window_ends_at: null, xchange: null, settled_at: null, tx_hash: null, created_at: 1, updated_at: 1, quote_hash: null,
      });
      const [winner, loser] = [`q_${randomUUID()}`, `q_${randomUUID()}`];
      await store.db.insertInto('quotes').values([quote(winner, await newMaker(2)), quote(loser, await newMaker(3))]).execute();
      const written = await inTransaction(store.db, (tx) =>
        writeQuoteStatuses(tx, [
          { id: winner, from: 'SUBMITTED', to: 'SELECTED', settlementDeadlineSecs: 9, fields: { spender: '0xabc', delivery_deadline_secs: 9, window_starts_at: 90, window_ends_at: 9000, quote_hash: null } },
          { id: loser, from: 'SUBMITTED', to: 'NOT_SELECTED', settlementDeadlineSecs: null },
        ], 90),
      );
      const pick = (r: (typeof written)[number]) => [r.id, r.status, r.settlement_deadline_secs, r.permit_signature, r.spender, r.quote_hash, r.delivery_deadline_secs, r.window_starts_at, r.window_ends_at, r.updated_at];
      assert.deepEqual(written.map(pick), [
        [winner, 'SELECTED', 9, 'kept', '0xabc', null, 9, 90, 9000, 90],
        [loser, 'NOT_SELECTED', null, 'kept', null, null, null, null, null, 90],
      ]);
      const stored = await store.db.selectFrom('quotes').selectAll().where('id', 'in', [winner, loser]).orderBy('id').execute();
      assert.deepEqual(stored.map(pick).sort(), written.map(pick).sort());
    });
  });
}
