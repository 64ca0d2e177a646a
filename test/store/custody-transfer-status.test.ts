/**
 * The custody transfer status writer: under the row lock a transfer is written only from the
 * status it was decided from; without it, only while it is still in one of the event's statuses
 * (a row that moved on is left as it is), its send counted in the statement.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends, openMigratedStore } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { inTransaction } from '../../src/store/outbox.ts';
import { writeCustodyTransferStatus, writeCustodyTransferStatusIfStill } from '../../src/store/custody-transfer-status.ts';
import { ONE_MORE_SEND } from '../../src/store/status-change.ts';
import { custodyTransferTransition, decideCustodyTransfer } from '../../src/domain/funds/custody-transfer-state.ts';

for (const backend of backends()) {
  describe(`custody transfer status writer [${backend}]`, () => {
    let store: Store;
    let close: () => Promise<void>;
    before(async () => {
      ({ store, close } = await openMigratedStore(backend));
      await store.db.insertInto('tokens').values({ symbol: 'USDC', decimals: 6, address: null, updated_at: 1 }).onConflict((oc) => oc.doNothing()).execute();
    });
    after(async () => {
      await close();
    });

    async function newTransfer(): Promise<string> {
      const id = randomUUID();
      await store.db
        .insertInto('custody_transfers')
        .values({
          id, purpose: 'approval', owner_id: randomUUID(), token: 'USDC', token_address: '0x0000000000000000000000000000000000000002', to_address: '0x0000000000000000000000000000000000000003',
          amount: 0n, status: 'QUEUED', from_address: null, nonce: null, raw_tx: null, tx_hash: null, send_attempts: 0, signed_at: null, last_sent_at: null, confirmed_block: null,
          last_error: null, call_data: '0x', gas: 50_000, cancel_requested_at: null, escalated_at: null, not_after_secs: null, created_at: 1, updated_at: 1,
        })
        .execute();
      return id;
    }
    const read = (id: string) => store.db.selectFrom('custody_transfers').select(['status', 'nonce', 'send_attempts', 'last_error', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow();

    it('writes a transition and its fields from the status it was decided from', async () => {
      const id = await newTransfer();
      const row = await inTransaction(store.db, (tx) => writeCustodyTransferStatus(tx, { id, from: 'QUEUED', to: decideCustodyTransfer('QUEUED', 'sign'), fields: { nonce: 7 } }, 50));
      assert.deepEqual([row.status, row.nonce, row.updated_at], ['SIGNED', 7, 50]);
    });

    it('under the lock, a row no longer in the prior status rolls the transaction back', async () => {
      const id = await newTransfer();
      await inTransaction(store.db, (tx) => writeCustodyTransferStatus(tx, { id, from: 'QUEUED', to: 'EXPIRED' }, 50));
      await assert.rejects(inTransaction(store.db, (tx) => writeCustodyTransferStatus(tx, { id, from: 'QUEUED', to: 'SIGNED' }, 60)), /custody transfer .* is no longer QUEUED/);
      assert.equal((await read(id)).status, 'EXPIRED');
    });

    it('without the lock, a send is written from any status it applies to and counted; a row that moved on is left', async () => {
      const id = await newTransfer();
      const send = { id, ...custodyTransferTransition('send'), fields: { send_attempts: ONE_MORE_SEND, last_error: null } };
      assert.equal(await writeCustodyTransferStatusIfStill(store.db, send, 40), undefined, 'QUEUED is not sent');
      await inTransaction(store.db, (tx) => writeCustodyTransferStatus(tx, { id, from: 'QUEUED', to: 'SIGNED' }, 50));
      assert.equal((await writeCustodyTransferStatusIfStill(store.db, send, 60))?.status, 'SENT');
      assert.equal((await writeCustodyTransferStatusIfStill(store.db, send, 70))?.status, 'SENT', 'a resend');
      assert.deepEqual(await read(id), { status: 'SENT', nonce: null, send_attempts: 2, last_error: null, updated_at: 70 });
      assert.equal((await writeCustodyTransferStatusIfStill(store.db, { id, ...custodyTransferTransition('confirm'), fields: { confirmed_block: 9 } }, 80))?.status, 'CONFIRMED');
      assert.equal(await writeCustodyTransferStatusIfStill(store.db, { id, ...custodyTransferTransition('lose'), fields: { last_error: 'lost' } }, 90), undefined);
      assert.deepEqual(await read(id), { status: 'CONFIRMED', nonce: null, send_attempts: 2, last_error: null, updated_at: 80 });
    });
  });
}
