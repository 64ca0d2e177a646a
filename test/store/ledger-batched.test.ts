/**
 * The one-statement ledger pieces the `/v0` order path uses: a movement recorded with its
 * postings and its user deltas returned; balance deltas applied last (a credit creates the row, a
 * debit that does not fit refuses the whole change); a lock consumed and ended with its rest
 * returned; an order recorded with its lock in one statement (or nothing written); a user delta
 * of `postMovement` creating the row on a credit and refusing a debit past the balance; and one
 * venue action per owner and kind.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backends, openMigratedStore } from '../helpers/backends.ts';
import type { Store } from '../../src/store/database.ts';
import { applyBalanceDeltas, consumeAndMaybeEndLock, recordMovement } from '../../src/store/ledger-batched.ts';
import { lockFunds, postMovement } from '../../src/store/ledger.ts';
import { recordV0OrderLocked, type NewV0Order } from '../../src/store/v0-order-record.ts';
import { storeSignedAction } from '../../src/services/v0/venue-actions.ts';
import { ServiceError } from '../../src/domain/errors.ts';

for (const backend of backends()) {
  describe(`ledger in few statements [${backend}]`, () => {
    let store: Store;
    let close: () => Promise<void>;
    const address = '0x0000000000000000000000000000000000000002';
    let accountId: string;
    before(async () => {
      ({ store, close } = await openMigratedStore(backend));
      accountId = randomUUID();
      await store.db.insertInto('accounts').values({ id: accountId, address, created_at: 1 }).execute();
      await store.db.insertInto('tokens').values([{ symbol: 'HYPE', decimals: 8, address: null, updated_at: 1 }, { symbol: 'USDC', decimals: 6, address: null, updated_at: 1 }]).onConflict((oc) => oc.doNothing()).execute();
      await store.db.insertInto('balances').values({ account_id: accountId, token: 'USDC', rail: 'VENUE', available: 1000n, locked: 0n }).execute();
    });
    after(async () => {
      await close();
    });

    const balance = async (token: string) => store.db.selectFrom('balances').select(['available', 'locked']).where('account_id', '=', accountId).where('token', '=', token).where('rail', '=', 'VENUE').executeTakeFirst();
    const order = (id: string, amount = 10n): NewV0Order => ({ id, order_uuid: randomUUID(), cloid: `0x${randomUUID().replaceAll('-', '')}`, side: 'buy', order_type: 'limit', tif: 'Ioc', base_token: 'HYPE', quote_token: 'USDC', asset: 10_000, amount, price: 41n, status: 'pending', created_at: 5, updated_at: 5 });

    it('records an order with its lock in one statement, and nothing for an unknown identity or a balance too small', async () => {
      const recorded = await recordV0OrderLocked(store.db, address, order('dord_a'), { lockId: randomUUID(), token: 'USDC', rail: 'VENUE', amount: 400n });
      assert.deepEqual(recorded, { recorded: true, accountId });
      assert.deepEqual(await balance('USDC'), { available: 600n, locked: 400n });
      const lock = await store.db.selectFrom('locks').select(['amount', 'owner_kind']).where('owner_id', '=', 'dord_a').executeTakeFirstOrThrow();
      assert.deepEqual(lock, { amount: 400n, owner_kind: 'order' });
      assert.deepEqual(await recordV0OrderLocked(store.db, '0x0000000000000000000000000000000000000009', order('dord_b'), { lockId: randomUUID(), token: 'USDC', rail: 'VENUE', amount: 1n }), { recorded: false, reason: 'noAccount' });
      assert.deepEqual(await recordV0OrderLocked(store.db, address, order('dord_c'), { lockId: randomUUID(), token: 'USDC', rail: 'VENUE', amount: 601n }), { recorded: false, reason: 'insufficient' });
      assert.deepEqual(await balance('USDC'), { available: 600n, locked: 400n });
      const ids = (await store.db.selectFrom('v0_orders').select('id').execute()).map((r) => r.id);
      assert.deepEqual(ids, ['dord_a']);
    });

    it('books a fill: postings recorded, the lock consumed and ended with its rest returned, balances applied last', async () => {
      const movementId = randomUUID();
      await store.db.transaction().execute(async (tx) => {
        const deltas = await recordMovement(tx, {
          movementId,
          kind: 'v0_fill',
          reference: 'dord_a',
          at: 7,
          postingIds: [randomUUID(), randomUUID(), randomUUID(), randomUUID()],
          postings: [
            { book: 'user', accountId, token: 'USDC', rail: 'VENUE', delta: -300n, source: 'ORDER_FILL', fromLocked: true },
            { book: 'custody', token: 'USDC', rail: 'VENUE', delta: 300n, source: 'ORDER_FILL' },
            { book: 'user', accountId, token: 'HYPE', rail: 'VENUE', delta: 5n, source: 'ORDER_FILL' },
            { book: 'custody', token: 'HYPE', rail: 'VENUE', delta: -5n, source: 'ORDER_FILL' },
          ],
        });
        assert.deepEqual(deltas.map((d) => [d.token, d.available, d.locked]), [['USDC', 0n, -300n], ['HYPE', 5n, 0n]]);
        deltas.push(...(await consumeAndMaybeEndLock(tx, 'order', 'dord_a', 300n, { reason: 'order filled' }, 8)));
        await applyBalanceDeltas(tx, deltas);
      });
      assert.deepEqual(await balance('USDC'), { available: 700n, locked: 0n });
      assert.deepEqual(await balance('HYPE'), { available: 5n, locked: 0n }, 'the credit created the row');
      const postings = await store.db.selectFrom('ledger_postings').select(['book', 'token', 'delta']).where('movement_id', '=', movementId).orderBy('delta').execute();
      assert.equal(postings.length, 4);
      const lock = await store.db.selectFrom('locks').select(['amount', 'released_at', 'release_reason']).where('owner_id', '=', 'dord_a').executeTakeFirstOrThrow();
      assert.deepEqual(lock, { amount: 400n, released_at: 8, release_reason: 'order filled' });
    });

    it('shrinks a lock by a partial consumption and ends it when used up', async () => {
      await store.db.transaction().execute((tx) => lockFunds(tx, { lockId: randomUUID(), accountId, token: 'USDC', rail: 'VENUE', amount: 100n, ownerKind: 'order', ownerId: 'dord_p', at: 9 }));
      await store.db.transaction().execute(async (tx) => assert.deepEqual(await consumeAndMaybeEndLock(tx, 'order', 'dord_p', 40n, null, 10), []));
      const live = await store.db.selectFrom('locks').select(['amount', 'released_at']).where('owner_id', '=', 'dord_p').executeTakeFirstOrThrow();
      assert.deepEqual(live, { amount: 60n, released_at: null });
      await assert.rejects(store.db.transaction().execute((tx) => consumeAndMaybeEndLock(tx, 'order', 'dord_p', 61n, null, 11)), /does not cover/);
      await store.db.transaction().execute(async (tx) => assert.deepEqual(await consumeAndMaybeEndLock(tx, 'order', 'dord_p', 60n, null, 12), []));
      const ended = await store.db.selectFrom('locks').select(['amount', 'released_at', 'release_reason']).where('owner_id', '=', 'dord_p').executeTakeFirstOrThrow();
      assert.deepEqual(ended, { amount: 60n, released_at: 12, release_reason: 'consumed' });
    });

    it('refuses balance deltas that would go negative, writing nothing', async () => {
      const before = await balance('USDC');
      await assert.rejects(
        store.db.transaction().execute((tx) => applyBalanceDeltas(tx, [{ accountId, token: 'HYPE', rail: 'VENUE', available: 1n, locked: 0n }, { accountId, token: 'USDC', rail: 'VENUE', available: -(before!.available + 1n), locked: 0n }])),
        (error: unknown) => error instanceof ServiceError && error.code === 'INSUFFICIENT_BALANCE',
      );
      assert.deepEqual(await balance('USDC'), before);
      assert.deepEqual(await balance('HYPE'), { available: 5n, locked: 0n });
      const stranger = randomUUID();
      await store.db.insertInto('accounts').values({ id: stranger, address: '0x0000000000000000000000000000000000000003', created_at: 1 }).execute();
      await assert.rejects(store.db.transaction().execute((tx) => applyBalanceDeltas(tx, [{ accountId: stranger, token: 'USDC', rail: 'VENUE', available: -1n, locked: 0n }])), /insufficient USDC/);
    });

    it('postMovement: a credit creates the balance row; a debit past the balance is refused', async () => {
      const other = randomUUID();
      await store.db.insertInto('accounts').values({ id: other, address: '0x0000000000000000000000000000000000000004', created_at: 1 }).execute();
      const move = (delta: bigint) => ({ movementId: randomUUID(), kind: 'test', at: 1, postingIds: [randomUUID(), randomUUID()], postings: [{ book: 'user' as const, accountId: other, token: 'USDC', rail: 'VENUE' as const, delta, source: 'ORDER_FILL' as const }, { book: 'custody' as const, token: 'USDC', rail: 'VENUE' as const, delta: -delta, source: 'ORDER_FILL' as const }] });
      await store.db.transaction().execute((tx) => postMovement(tx, move(50n)));
      await store.db.transaction().execute((tx) => postMovement(tx, move(25n)));
      await assert.rejects(store.db.transaction().execute((tx) => postMovement(tx, move(-76n))), (error: unknown) => error instanceof ServiceError && error.code === 'INSUFFICIENT_BALANCE');
      await store.db.transaction().execute((tx) => postMovement(tx, move(-75n)));
      const row = await store.db.selectFrom('balances').select(['available', 'locked']).where('account_id', '=', other).executeTakeFirstOrThrow();
      assert.deepEqual(row, { available: 0n, locked: 0n });
    });

    it('stores one venue action per owner and kind', async () => {
      const action = (nonce: number) => ({ id: randomUUID(), signer: '0xsigner', nonce, kind: 'order' as const, ownerId: 'dord_a', request: { nonce } });
      assert.equal(await storeSignedAction(store.db, action(1), 1, 'SENT'), true);
      assert.equal(await storeSignedAction(store.db, action(2), 2), false);
      const rows = await store.db.selectFrom('venue_actions').select(['nonce', 'status', 'send_attempts']).where('owner_id', '=', 'dord_a').execute();
      assert.deepEqual(rows, [{ nonce: 1, status: 'SENT', send_attempts: 1 }]);
    });
  });
}
