/**
 * The status writers: a transition is written only from the status it was decided from (a row
 * that moved on is never written over, and a batch with one such row writes nothing), the
 * outcome's fields are written with it, and a field change keeps the status.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/backends.ts';
import { openStore, type Store } from '../../src/store/database.ts';
import { migrateToLatest } from '../../src/store/migrate.ts';
import { inTransaction } from '../../src/store/outbox.ts';
import { writeRfqStatus, writeRfqStatuses } from '../../src/store/rfq-status.ts';
import { transitionRfq } from '../../src/domain/rfq/index.ts';

for (const backend of backends()) {
  describe(`status writers [${backend}]`, () => {
    let database: TestDatabase;
    let store: Store;
    let accountId: string;
    before(async () => {
      database = await createTestDatabase(backend);
      store = await openStore(database.location);
      await migrateToLatest(store.db);
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
      await store.close();
      await database.drop();
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
  });
}
