/**
 * The `/v0` withdrawal state writer: it writes the `state` column, under the row lock only from
 * the state decided from, without it only while the withdrawal is still pending.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends, openMigratedStore } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { inTransaction } from '../../src/store/outbox.ts';
import { writeV0WithdrawalState, writeV0WithdrawalStateIfStill } from '../../src/store/v0-withdrawal-status.ts';
import { decideV0Withdrawal, v0WithdrawalTransition } from '../../src/domain/v0/withdrawal-status.ts';

for (const backend of backends()) {
  describe(`/v0 withdrawal state writer [${backend}]`, () => {
    let store: Store;
    let close: () => Promise<void>;
    let accountId: string;
    before(async () => {
      ({ store, close } = await openMigratedStore(backend));
      accountId = randomUUID();
      await store.db.insertInto('accounts').values({ id: accountId, address: '0x0000000000000000000000000000000000000001', created_at: 1 }).execute();
      await store.db.insertInto('tokens').values({ symbol: 'USDC', decimals: 6, address: null, updated_at: 1 }).onConflict((oc) => oc.doNothing()).execute();
    });
    after(async () => {
      await close();
    });

    async function newWithdrawal(): Promise<string> {
      const id = randomUUID();
      await store.db.insertInto('v0_withdrawals').values({ id, account_id: accountId, token: 'USDC', amount: 5n, to_address: '0x0000000000000000000000000000000000000001', state: 'pending', tx_hash: null, error_message: null, created_at: 1, updated_at: 1 }).execute();
      return id;
    }
    const read = (id: string) => store.db.selectFrom('v0_withdrawals').select(['state', 'tx_hash', 'error_message', 'updated_at']).where('id', '=', id).executeTakeFirstOrThrow();
    const fail = (id: string, message: string) => {
      const { lock: _lock, ...transition } = v0WithdrawalTransition('fail');
      return { id, ...transition, fields: { error_message: message } };
    };

    it('completes from the state decided from, with its hash; never over a finished one', async () => {
      const id = await newWithdrawal();
      const row = await inTransaction(store.db, (tx) => writeV0WithdrawalState(tx, { id, from: 'pending', to: decideV0Withdrawal('pending', 'complete').state, fields: { tx_hash: '0xabc' } }, 50));
      assert.deepEqual([row.state, row.tx_hash, row.updated_at], ['completed', '0xabc', 50]);
      await assert.rejects(inTransaction(store.db, (tx) => writeV0WithdrawalState(tx, { id, from: 'pending', to: 'failed' }, 60)), /withdrawal .* is no longer pending/);
      assert.equal(await writeV0WithdrawalStateIfStill(store.db, fail(id, 'late'), 70), false);
      assert.deepEqual(await read(id), { state: 'completed', tx_hash: '0xabc', error_message: null, updated_at: 50 });
    });

    it('fails a pending one without the row lock, with the venue\'s message', async () => {
      const id = await newWithdrawal();
      assert.equal(await writeV0WithdrawalStateIfStill(store.db, fail(id, 'refused'), 40), true);
      assert.deepEqual(await read(id), { state: 'failed', tx_hash: null, error_message: 'refused', updated_at: 40 });
    });
  });
}
